"""Wire compatibility, second round (issue 30): the ecosystem's Python SDK (feldera, from PyPI)
against svc on the calls its users reach for next. Run by test/cli/python-sdk.test.ts like the
other scripts: SVC_URL names the manager; each step prints one JSON line {"step", ...observations}.
"""

import io
import json
import os
import zipfile

import pandas as pd
from feldera import FelderaClient, PipelineBuilder

from svc_stats import view_maintenance

client = FelderaClient(os.environ["SVC_URL"], timeout=60)


def emit(step, **observed):
    print(json.dumps({"step": step, **observed}, default=str), flush=True)


# The established dialect: a DOUBLE, a TIMESTAMP with LATENESS, a VARIANT, a quoted identifier.
SQL = (
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, x DOUBLE, ts TIMESTAMP NOT NULL LATENESS INTERVAL '1' HOUR,"
    ' d DATE, v VARIANT, "Label" VARCHAR) WITH (\'materialized\' = \'true\');\n'
    'CREATE MATERIALIZED VIEW v AS SELECT id, x * 2 AS x2, ts, d, "Label" FROM t;'
)
p = PipelineBuilder(client, name="sdk-compat", sql=SQL).create_or_replace()
emit("validated", result=sorted(client.validate_program(SQL).keys()),
     bad=sorted(client.validate_program("CREATE TABLE q (x NOSUCHTYPE);").keys()))
p.start(timeout_s=120)
emit("maintenance", views=view_maintenance(client, p.name))
out = p.listen("v")
df = pd.DataFrame(
    {
        "id": [1, 2],
        "x": [1.5, 2.25],
        "ts": pd.to_datetime(["2024-03-01 12:34:56.789", "2024-03-02 00:00:00.000"]),
        "d": pd.to_datetime(["2024-03-01", "2024-03-02"]),
        "v": [None, None],
        "Label": ["a", "b"],
    }
)
p.input_pandas("t", df)
p.wait_for_idle(idle_interval_s=1, timeout_s=60)
emit("queried", rows=sorted(
    [dict(r) for r in p.query('SELECT id, x2, CAST(ts AS VARCHAR) AS ts, CAST(d AS VARCHAR) AS d, "Label" FROM v')],
    key=lambda r: r["id"]))
listened = out.to_pandas()
emit("listened", rows=len(listened), x2=sorted(float(x) for x in listened["x2"]),
     ts_dtype=str(listened["ts"].dtype))
text = p.metrics()
emit("metrics", is_text=isinstance(text, str), has_processed="records_processed_total{" in text)
as_json = p.metrics(format="json")
emit("metrics_json", names=sorted({m["name"] for m in as_json if m["name"].startswith("records_")}))
p.checkpoint(wait=True, timeout_s=60)
emit("checkpoints", count=len(p.checkpoints()))
bundle = zipfile.ZipFile(io.BytesIO(p.support_bundle()))
emit("bundle", files=sorted(bundle.namelist()))
p.stop(force=True, timeout_s=60)
p.delete(clear_storage=True)

# wait_for_idle on a pipeline fed only by a connector: total_input_records counts its records.
CONNECTORS = json.dumps(
    [{"name": "gen", "transport": {"name": "datagen", "config": {"plan": [{"limit": 300, "rate": 1000}]}}}]
)
fed = PipelineBuilder(
    client,
    name="sdk-compat-fed",
    sql=f"CREATE TABLE g (k INT NOT NULL) WITH ('connectors' = '{CONNECTORS}');\n"
    "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM g;",
).create_or_replace()
fed.start(timeout_s=120)
emit("maintenance_fed", views=view_maintenance(client, fed.name))
fed.wait_for_idle(idle_interval_s=1, timeout_s=60)
g = fed.stats().global_metrics
emit("idle", n=[dict(r) for r in fed.query("SELECT n FROM c")][0]["n"],
     total_input_records=g.total_input_records, total_processed_records=g.total_processed_records)
fed.stop(force=True, timeout_s=60)
fed.delete(clear_storage=True)
emit("done")
