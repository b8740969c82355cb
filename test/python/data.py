"""The data calls of the ecosystem's Python SDK (feldera, from PyPI) against svc's data path.

Run by test/cli/python-sdk.test.ts like lifecycle.py: SVC_URL names the manager; each step prints
one JSON line {"step", ...observations} and the TypeScript test asserts on them.
"""

import json
import os

from feldera import FelderaClient, PipelineBuilder

from svc_stats import view_maintenance

client = FelderaClient(os.environ["SVC_URL"], timeout=60)
SQL = (
    "CREATE TABLE t (x INT PRIMARY KEY, s TEXT) WITH ('materialized' = 'true');\n"
    "CREATE MATERIALIZED VIEW v AS SELECT s, count(*) AS n FROM t GROUP BY s;\n"
    "CREATE TABLE ids (id BIGINT NOT NULL) WITH ('materialized' = 'true');"
)


def emit(step, **observed):
    print(json.dumps({"step": step, **observed}, default=str), flush=True)


p = PipelineBuilder(client, name="sdk-data", sql=SQL).create_or_replace()
p.start(timeout_s=120)
emit("maintenance", views=view_maintenance(client, p.name))
out = p.listen("v")
p.input_json("t", [{"x": 1, "s": "a"}, {"x": 2, "s": "a"}, {"x": 3, "s": "b"}])
p.input_json("t", {"delete": {"x": 3, "s": "b"}}, update_format="insert_delete")
# A bigint past 2^53 (a snowflake-sized id): Python's ints are exact, so the digits must survive svc.
p.input_json("ids", [{"id": 9223372036854775807}, {"id": 9007199254740993}])
p.wait_for_idle(idle_interval_s=1, timeout_s=60)
emit("ids", ids=sorted(str(r["id"]) for r in p.query("SELECT id FROM ids")))
emit("queried", rows=sorted([dict(r) for r in p.query("SELECT s, n FROM v")], key=lambda r: r["s"]))
net = {}
for c in out.to_dict():
    key = (c["s"], int(c["n"]))
    net[key] = net.get(key, 0) + int(c["insert_delete"])
emit("listened", net=sorted([[s, n, w] for (s, n), w in net.items() if w != 0]))
seq = p.checkpoint(wait=True, timeout_s=60)
emit("checkpointed", sequence_number=seq)
p.stop(force=True, timeout_s=60)
p.delete(clear_storage=True)
emit("done")
