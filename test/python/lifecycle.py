"""The pipeline lifecycle driven by the ecosystem's Python SDK (feldera, from PyPI) against svc.

Run by test/cli/python-sdk.test.ts with the SDK's venv (test/support/python-sdk.ts); the manager's
URL comes in SVC_URL. Each step prints one JSON line {"step", ...observations}; the TypeScript test
asserts on them. A step the SDK cannot do raises, so the script exits non-zero with the traceback.
"""

import json
import os
import sys

from feldera import FelderaClient, PipelineBuilder
from feldera.enums import FaultToleranceModel, PipelineFieldSelector
from feldera.rest.errors import FelderaAPIError
from feldera.runtime_config import Resources, RuntimeConfig

from svc_stats import view_maintenance

client = FelderaClient(os.environ["SVC_URL"], timeout=60)
SQL = "CREATE TABLE t (x INT PRIMARY KEY);\nCREATE VIEW v AS SELECT x FROM t;"


def emit(step, **observed):
    print(json.dumps({"step": step, **observed}), flush=True)


def status(p):
    return p.status().name


# The SDK's default runtime_config (it sends resources.volume_attributes_class: null, a member newer
# than the seed) and its program_config (runtime_version: null).
p = PipelineBuilder(client, name="sdk-life", sql=SQL).create_or_replace()
emit(
    "created",
    status=status(p),
    program_status=p.program_status().name,
    tables=[[t.name, t.materialized] for t in p.tables()],
    views=[[v.name, v.materialized] for v in p.views()],
    volume_attributes_class_kept="volume_attributes_class" in p.runtime_config().resources,
)

p.start(timeout_s=120)
emit("maintenance", views=view_maintenance(client, p.name))
emit("started", status=status(p))
p.pause(timeout_s=60)
emit("paused", status=status(p))
p.resume(timeout_s=60)
emit("resumed", status=status(p))
p.stop(force=True, timeout_s=60)
emit("stopped", status=status(p), storage=p.storage_status().name)
p.start_paused(timeout_s=120)
emit("started_paused", status=status(p))
p.stop(force=True, timeout_s=60)
emit("stopped_again", status=status(p))
p.clear_storage(timeout_s=60)
emit("cleared", storage=p.storage_status().name)
p.delete()
try:
    client.get_pipeline("sdk-life", PipelineFieldSelector.ALL)
    emit("deleted", gone=False)
except FelderaAPIError as error:
    emit("deleted", gone=error.error_code == "UnknownPipelineName")

# The newer spellings: durations and sizes as strings, normalised onto the seed's members.
config = RuntimeConfig(
    workers=2,
    provisioning_timeout="2m",
    max_rss="2Gi",
    clock_resolution="100ms",
    fault_tolerance_model=FaultToleranceModel.AtLeastOnce,
    checkpoint_interval="30s",
    resources=Resources(memory_max="4Gi", cpu_cores_max=2),
)
c = PipelineBuilder(client, name="sdk-config", sql=SQL, runtime_config=config).create_or_replace()
rc = client.get_pipeline("sdk-config", PipelineFieldSelector.ALL).runtime_config
emit(
    "newer_spellings",
    provisioning_timeout_secs=rc.get("provisioning_timeout_secs"),
    max_rss_mb=rc.get("max_rss_mb"),
    clock_resolution_usecs=rc.get("clock_resolution_usecs"),
    checkpoint_interval_secs=rc["fault_tolerance"].get("checkpoint_interval_secs"),
    memory_mb_max=rc["resources"].get("memory_mb_max"),
    read_back=c.runtime_config().provisioning_timeout,
)
c.delete()

# A program that does not compile: the SDK's wait for compilation raises with the SQL error.
try:
    PipelineBuilder(client, name="sdk-bad", sql="CREATE TABLE broken (x NOSUCHTYPE);").create_or_replace()
    emit("failing_program", raised=False)
except RuntimeError as error:
    emit("failing_program", raised=True, message=str(error))
bad = client.get_pipeline("sdk-bad", PipelineFieldSelector.ALL)
emit("failing_status", program_status=bad.program_status)
client.delete_pipeline("sdk-bad")
sys.exit(0)
