"""Wire compatibility, the records and the rest (issue 30): the ecosystem's Python SDK (feldera, from
PyPI) against svc on the pipeline record's members per selector, the version counters, the cluster
health, the calls svc does not serve, the JSON flavors it does not read, and MAP types. Run by
test/cli/python-sdk.test.ts like the other scripts: SVC_URL names the manager; each step prints one
JSON line {"step", ...observations}.
"""

import json
import os

from feldera import FelderaClient, PipelineBuilder
from feldera.enums import PipelineFieldSelector
from feldera.rest.errors import FelderaAPIError

from svc_stats import view_maintenance

client = FelderaClient(os.environ["SVC_URL"], timeout=60)


def emit(step, **observed):
    print(json.dumps({"step": step, **observed}, default=str), flush=True)


def refused(call):
    """The SDK's error for a call: its status, error_code and message (or None when it succeeded)."""
    try:
        call()
    except FelderaAPIError as e:
        return {"status": e.status_code, "error_code": e.error_code, "message": e.message}
    return None


SQL = (
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, m MAP<VARCHAR, INT>) WITH ('materialized' = 'true');\n"
    "CREATE MATERIALIZED VIEW v AS SELECT id, m FROM t;"
)
p = PipelineBuilder(client, name="sdk-records", sql=SQL).create_or_replace()

# The accessors of members that are unset on a pipeline never started: None, not AttributeError.
emit("unset", deployment_error=p.deployment_error(), errors=p.errors(),
     storage_status_details=p.storage_status_details(), bootstrap_policy=p.bootstrap_policy())
status = client.get_pipeline("sdk-records", PipelineFieldSelector.STATUS).__dict__
full = client.get_pipeline("sdk-records", PipelineFieldSelector.ALL).__dict__
emit("members", status=sorted(k for k in status if k not in ("tables", "views")),
     all=sorted(k for k in full if k not in ("tables", "views")))

# MAP as the established dialect reports it, in the table and in the view.
columns = {
    rel["name"]: {f["name"]: f["columntype"] for f in rel["fields"]}
    for rel in p.program_info()["schema"]["inputs"] + p.program_info()["schema"]["outputs"]
}
emit("map", table=columns["t"]["m"], view=columns["v"]["m"])

# Editing description and tags moves no counter; a program edit moves all three.
before = (p.version(), p.program_version(), full["refresh_version"])
p.modify(description="labels only", tags=["team-x"])
after = client.get_pipeline("sdk-records", PipelineFieldSelector.STATUS)
emit("metadata_edit", before=before, after=(after.version, after.program_version, after.refresh_version))

# The cluster's health as the SDK reads it before it retries a 502.
emit("health", all_healthy=client.http._check_cluster_health())

p.start(timeout_s=120)
emit("maintenance", views=view_maintenance(client, p.name))
emit("json_flavor", refused=refused(
    lambda: client.push_to_pipeline("sdk-records", "t", "json", [{"id": 1, "m": {"a": 1}}], array=True,
                                    json_flavor="snowflake")))
emit("not_served", transaction=refused(p.start_transaction), rebalance=refused(p.rebalance),
     sync=refused(lambda: client.sync_checkpoint("sdk-records")))
p.stop(force=True, timeout_s=60)
p.delete(clear_storage=True)
emit("done")
