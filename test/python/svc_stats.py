"""What the scripts read of a running pipeline's /stats beyond the SDK's own model.

svc's /stats (forwarded by the manager as the pipeline answers it) names, per view, what keeps it:
`native` (the native engine) or the PGlite rule (docs/engine.md). The SDK's tests assert that every
view of their programs is native (issue 28).
"""


def view_maintenance(client, name):
    stats = client.http.get(f"/pipelines/{name}/stats")
    return {view: about["maintenance"] for view, about in stats["views"].items()}
