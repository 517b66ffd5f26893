#!/usr/bin/env python3
"""Check streamview's `--format otlp` output with OpenTelemetry's own
definitions: every line must parse, with protobuf's strict JSON parser
(`google.protobuf.json_format.Parse`: no unknown field, ids in hex), as an
ExportTraceServiceRequest or an ExportMetricsServiceRequest of the
`opentelemetry-proto` package. Then, per trace, every parent span exists
and no span ends before it starts.

Reads the output on stdin; prints one JSON line per session, in the order
their root spans came: its conversation id, the spans by operation, the
execute_tool spans with status ERROR, the root's output tokens, and the
metrics' output tokens. Exits 3 when the packages are missing (the test
then skips), 1 on a line that does not parse or a broken trace.
"""

import base64
import json
import sys

try:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
except ImportError as e:  # the test skips
    print(f"missing: {e}", file=sys.stderr)
    sys.exit(3)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


ID_LENGTHS = {"traceId": 32, "spanId": 16, "parentSpanId": 16}


def hex_to_base64(node, n):
    """OTLP/JSON's one departure from protobuf's JSON mapping: trace and
    span ids are lowercase hex, not base64. Check them so, and rewrite them
    as the mapping wants for the strict parser. Field names must be
    lowerCamelCase (the parser would take snake_case too)."""
    if isinstance(node, list):
        for x in node:
            hex_to_base64(x, n)
    elif isinstance(node, dict):
        for k, v in list(node.items()):
            if "_" in k:
                fail(f"line {n}: field {k} is not lowerCamelCase")
            if k in ID_LENGTHS:
                if (not isinstance(v, str) or len(v) != ID_LENGTHS[k]
                        or any(c not in "0123456789abcdef" for c in v)):
                    fail(f"line {n}: {k} {v!r} is not {ID_LENGTHS[k]} lowercase hex digits")
                node[k] = base64.b64encode(bytes.fromhex(v)).decode()
            else:
                hex_to_base64(v, n)


def attrs(kvs):
    out = {}
    for kv in kvs:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value")) if v.WhichOneof("value") else None
    return out


def shape(s):
    """What a span is, apart from where its file was read."""
    return (s.parent_span_id, s.name, s.start_time_unix_nano, s.end_time_unix_nano, s.status.code)


def main():
    spans = {}  # trace id -> {span id -> span}
    roots = []  # (trace id, span) in order
    metric_out = {}  # conversation id -> output tokens
    for n, line in enumerate(sys.stdin.buffer, 1):
        text = line.decode("utf-8")  # must be UTF-8
        obj = json.loads(text)
        hex_to_base64(obj, n)
        mapped = json.dumps(obj)
        if "resourceSpans" in obj:
            msg = json_format.Parse(mapped, trace_service_pb2.ExportTraceServiceRequest())
            for rs in msg.resource_spans:
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        if len(s.trace_id) != 16 or len(s.span_id) != 8:
                            fail(f"line {n}: id of the wrong length")
                        t = s.trace_id.hex()
                        earlier = spans.setdefault(t, {}).get(s.span_id.hex())
                        if earlier is not None:
                            # The same session read twice (a file copied into
                            # another folder) is the same trace, span for span;
                            # anything else with the same ids is a collision.
                            if shape(earlier) != shape(s):
                                fail(f"line {n}: span {s.span_id.hex()} twice in trace {t}")
                            continue
                        spans[t][s.span_id.hex()] = s
                        if s.start_time_unix_nano > s.end_time_unix_nano:
                            fail(f"line {n}: span {s.name} ends before it starts")
                        if not s.parent_span_id:
                            roots.append((t, s))
        elif "resourceMetrics" in obj:
            msg = json_format.Parse(mapped, metrics_service_pb2.ExportMetricsServiceRequest())
            for rm in msg.resource_metrics:
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        if m.name != "gen_ai.client.token.usage":
                            continue
                        for p in m.histogram.data_points:
                            a = attrs(p.attributes)
                            if a.get("gen_ai.token.type") == "output":
                                key = a.get("gen_ai.conversation.id")
                                metric_out[key] = metric_out.get(key, 0) + int(p.sum)
        else:
            fail(f"line {n}: neither traces nor metrics")
    for t, byid in spans.items():
        for s in byid.values():
            if s.parent_span_id and s.parent_span_id.hex() not in byid:
                fail(f"trace {t}: span {s.name} has no parent {s.parent_span_id.hex()}")
    for t, root in roots:
        a = attrs(root.attributes)
        if a.get("gen_ai.operation.name") != "invoke_agent":
            continue
        ops = {}
        errors = 0
        chat_out = 0
        for s in spans[t].values():
            sa = attrs(s.attributes)
            op = sa.get("gen_ai.operation.name")
            ops[op] = ops.get(op, 0) + 1
            if op == "execute_tool" and s.status.code == 2:
                errors += 1
            if op == "chat":
                chat_out += sa.get("gen_ai.usage.output_tokens", 0)
        conv = a.get("gen_ai.conversation.id")
        print(json.dumps({
            "trace": t,
            "session": conv,
            "tools": ops.get("execute_tool", 0),
            "tool_errors": errors,
            "chats": ops.get("chat", 0),
            "agents": ops.get("invoke_agent", 0),
            "output": a.get("gen_ai.usage.output_tokens"),
            "chat_output": chat_out,
            "metric_output": metric_out.get(conv),
            "outcome": a.get("streamview.outcome"),
            "status": root.status.code,
        }))


main()
