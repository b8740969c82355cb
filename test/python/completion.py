"""wait_for_completion of the ecosystem's Python SDK (feldera, from PyPI) against svc's connectors.

Run by test/cli/python-sdk.test.ts: a table fed by a datagen connector with a limit ends its input;
the SDK polls /stats until pipeline_complete, then reads the view; then the connector's completion
token (generate_completion_token, wait_for_token), and one of a connector that does not exist.
One JSON line per step.
"""

import json
import os

from feldera import FelderaClient, PipelineBuilder
from feldera.rest.errors import FelderaAPIError

from svc_stats import view_maintenance

client = FelderaClient(os.environ["SVC_URL"], timeout=60)
CONNECTORS = json.dumps([{"name": "gen", "transport": {"name": "datagen", "config": {"plan": [{"limit": 250}]}}}])
SQL = (
    f"CREATE TABLE g (k INT NOT NULL) WITH ('connectors' = '{CONNECTORS}');\n"
    "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n, sum(k) AS total FROM g;"
)


def emit(step, **observed):
    print(json.dumps({"step": step, **observed}, default=str), flush=True)


p = PipelineBuilder(client, name="sdk-complete", sql=SQL).create_or_replace()
p.start(timeout_s=120)
emit("maintenance", views=view_maintenance(client, p.name))
p.wait_for_completion(timeout_s=60)
emit("completed", complete=p.is_complete())
emit("queried", rows=[dict(r) for r in p.query("SELECT n, total FROM c")])
token = p.generate_completion_token("g", "gen")
p.wait_for_token(token)
emit("token", status=p.completion_token_status(token).value)
try:
    p.generate_completion_token("g", "nope")
    emit("unknown_connector", raised=False)
except FelderaAPIError as e:
    emit("unknown_connector", raised=True, status=e.status_code, error_code=e.error_code, message=e.message)
p.stop(force=True, timeout_s=60)
p.delete(clear_storage=True)
emit("done")
