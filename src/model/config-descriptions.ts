// What each runtime_config and program_config member means (seed 2.3 and 2.6), for the generated
// docs/configuration.md. Types, ranges and defaults come from the schemas themselves; a test checks
// that every member has a line here and that no line outlives its member.

const D = {
  'runtime_config.checkpoint_during_suspend': 'Deprecated; has no effect.',
  'runtime_config.clock_resolution_usecs':
    'Clock resolution in microseconds for queries that use NOW(): the clock updates and triggers recomputation at most once per interval.',
  'runtime_config.cpu_profiler':
    'Enable the CPU profiler: the native circuits’ operators are timed, and `GET /circuit_profile` shows their steps, time and rows (off: what they hold only).',
  'runtime_config.datafusion_memory_mb':
    'Memory pool in MB for ad-hoc queries and table-format connectors, carved out of `max_rss_mb`. Unset: 5% of the effective budget, at most 2 GB.',
  'runtime_config.dev_tweaks': 'Unstable experimental settings; may change between versions.',
  'runtime_config.dev_tweaks.adaptive_joins': 'Adaptive joins change partitioning dynamically to avoid skew.',
  'runtime_config.dev_tweaks.balancer_balance_tax':
    'Discourages the Balance policy in a balanced collection: used only when skew is below this value.',
  'runtime_config.dev_tweaks.balancer_key_distribution_refresh_threshold':
    'The balancer re-checks partitioning only when a shard changed by more than this fraction.',
  'runtime_config.dev_tweaks.balancer_min_absolute_improvement_threshold':
    'Minimum absolute estimated improvement for a rebalancing (both thresholds must be met).',
  'runtime_config.dev_tweaks.balancer_min_relative_improvement_threshold':
    'Minimum relative estimated improvement for a rebalancing.',
  'runtime_config.dev_tweaks.bloom_false_positive_rate':
    'False-positive rate of Bloom filters on stored batches, 0 < f < 1; a value outside disables them.',
  'runtime_config.dev_tweaks.buffer_cache_allocation_strategy': 'How caches are shared across a worker pair.',
  'runtime_config.dev_tweaks.buffer_cache_strategy': 'Eviction strategy of a cache instance.',
  'runtime_config.dev_tweaks.buffer_max_buckets':
    'Buckets of sharded buffer caches (with `s3_fifo`), rounded up to a power of two.',
  'runtime_config.dev_tweaks.disable_auto_transaction': 'Do not start a transaction automatically for every step.',
  'runtime_config.dev_tweaks.eager_evict': 'Evict from buffer caches as soon as files are deleted.',
  'runtime_config.dev_tweaks.enable_roaring': 'Allow roaring membership filters on file-backed batches.',
  'runtime_config.dev_tweaks.fbuf_slab_bytes_per_class': 'Target cached bytes per slab size class.',
  'runtime_config.dev_tweaks.fetch_distinct': 'Fetch keys for the distinct operator from storage asynchronously.',
  'runtime_config.dev_tweaks.fetch_join': 'Fetch keys for the join operator from storage asynchronously.',
  'runtime_config.dev_tweaks.max_level0_batch_size_records': 'Maximum batch size in records for level-0 merges.',
  'runtime_config.dev_tweaks.merger': 'Merger implementation.',
  'runtime_config.dev_tweaks.merger_threads': 'Merger threads. Unset: the number of worker threads.',
  'runtime_config.dev_tweaks.native_engine':
    'Views the native engine covers are kept by it (unset or true); false keeps every view on the PGlite path (docs/engine.md).',
  'runtime_config.dev_tweaks.negative_weight_multiplier':
    'Bias toward promoting retractions to higher merge levels (reasonable range 0 to 10).',
  'runtime_config.dev_tweaks.now_http_driven':
    'NOW() holds its first tick and moves only by `POST /v0/pipelines/{name}/clock/advance`.',
  'runtime_config.dev_tweaks.now_offset':
    'RFC 3339 time (years 0001 to 9999) anchoring NOW() at the first start; honoured only on a fresh start.',
  'runtime_config.dev_tweaks.splitter_chunk_size_records': 'Maximum records per step from splitter operators.',
  'runtime_config.dev_tweaks.stack_overflow_backtrace': 'Print a stack trace on stack overflow (debugging only).',
  'runtime_config.dev_tweaks.storage_mb_max':
    'Maximum MiB on the POSIX storage backend before writes fail with `StorageFull`.',
  'runtime_config.dev_tweaks.streaming_exchange': 'Enable streaming exchange.',
  'runtime_config.env':
    'Environment variables of the pipeline process. `RUST_LOG` and names starting `SVC_`, `KUBERNETES_`, `TOKIO_` are reserved (400).',
  'runtime_config.fault_tolerance': 'Absent: fault tolerance off. Present (even `{}`): on, with automatic checkpoints.',
  'runtime_config.fault_tolerance.checkpoint_interval_secs':
    'Seconds between automatic checkpoints; values outside 1 to 3600 are forced into that range.',
  'runtime_config.fault_tolerance.checkpoint_interval': 'a duration such as `"60s"`.',
  'runtime_config.fault_tolerance.model':
    'Fault-tolerance model (e.g. `"at_least_once"`, `"exactly_once"`); stored as given.',
  'runtime_config.hosts': 'Circuit hosts; workers are divided evenly among them.',
  'runtime_config.http_workers': 'Threads of the HTTP server.',
  'runtime_config.init_containers': 'Additional (sidecar) containers for the Kubernetes runner; stored as given.',
  'runtime_config.io_workers': 'Threads for asynchronous I/O (connectors, ad-hoc queries).',
  'runtime_config.logging':
    'Log filter of the pipeline process. A plain level (`debug`, `warn`, …) is honoured; anything else means INFO.',
  'runtime_config.max_buffering_delay_usecs':
    'Maximum wait in microseconds for `min_batch_size_records` to be buffered.',
  'runtime_config.max_parallel_connector_init': 'Connectors initialised in parallel at start.',
  'runtime_config.max_rss_mb':
    'Memory cap in MB per host; turns on memory-pressure monitoring (the `memory_pressure` metric) and input backpressure: from 90 % of it input is held (ingress answers 503 `MemoryPressure` after 20 s, connectors stop pulling) until RSS is back under 85 % ([data-path.md](data-path.md#ingress-post-ingresstable)). Unset: `resources.memory_mb_max` if set.',
  'runtime_config.min_batch_size_records':
    'Input records to buffer before pushing them to the circuit (or until `max_buffering_delay_usecs`).',
  'runtime_config.pin_cpus':
    "CPUs worker threads may be pinned to; give at least twice `workers`. Fewer is accepted with a warning in the pipeline's log (pinning may not be honoured); duplicates are a 400.",
  'runtime_config.pipeline_template_configmap':
    'A custom pipeline template in a ConfigMap (Kubernetes runner, with `--allow-custom-pipeline-template`).',
  'runtime_config.pipeline_template_configmap.name': 'Name of the ConfigMap (required).',
  'runtime_config.pipeline_template_configmap.key': 'Entry of the ConfigMap holding the template.',
  'runtime_config.provisioning_timeout_secs':
    "Seconds the Provisioning phase may take. Unset: the runner's default (local 20, Kubernetes 600).",
  'runtime_config.resources': "Resource reservations of the pipeline's pod (Kubernetes runner).",
  'runtime_config.resources.cpu_cores_min': 'Minimum CPU cores (requests); not above `cpu_cores_max`.',
  'runtime_config.resources.cpu_cores_max': 'Maximum CPU cores (limits).',
  'runtime_config.resources.memory_mb_min': 'Minimum memory in MB; not above `memory_mb_max`.',
  'runtime_config.resources.memory_mb_max': 'Maximum memory in MB.',
  'runtime_config.resources.storage_mb_max': "Storage in MB of the pipeline's volume.",
  'runtime_config.resources.storage_class': 'Storage class of the volume.',
  'runtime_config.resources.namespace': "Namespace the pipeline runs in. Unset: the runner's.",
  'runtime_config.resources.service_account_name': "Service account of the pipeline's pod.",
  'runtime_config.resources.memory_min': 'a size such as `"4Gi"`.',
  'runtime_config.resources.memory_max': 'a size such as `"16Gi"`.',
  'runtime_config.resources.storage_max': 'a size such as `"400Gi"`.',
  'runtime_config.storage':
    'Storage configuration. `true` means storage with its defaults, `false` none (unset). With storage, a native table that only grows writes its rows to `<storage>/spill/` rather than holding them all in memory (docs/engine.md).',
  'runtime_config.storage.backend': 'Storage backend configuration; stored as given.',
  'runtime_config.storage.cache_mib':
    'In-memory storage cache in MiB over all threads. Unset: 256 MiB per foreground or background thread.',
  'runtime_config.storage.compression': 'Compression of stored batches.',
  'runtime_config.storage.min_storage_bytes':
    'Minimum estimated bytes of a batch of a persistent index to write it to storage. svc: the bytes of a native table’s sealed pages of rows that wait in memory before they are written.',
  'runtime_config.storage.min_step_storage_bytes':
    'Minimum estimated bytes of a batch passed through in one step to write it to storage. Unset: never.',
  'runtime_config.storage.min_spill_size': 'a size such as `"10Mi"` (a bare number counts bytes).',
  'runtime_config.tracing': 'Enable pipeline tracing.',
  'runtime_config.tracing_endpoint_jaeger': 'Endpoint of the tracing collector.',
  'runtime_config.workers':
    'Foreground circuit worker threads (each paired with a background merge thread); typically 4 to 16. svc runs the native views on this many threads at most, bounded by the cores the pipeline may use with one left to its main thread (`resources.cpu_cores_max`, `svc pipeline --cpu-cores`; docs/engine.md).',
  'runtime_config.clock_resolution': 'a duration such as `"1s"`.',
  'runtime_config.datafusion_memory': 'a size such as `"2Gi"`.',
  'runtime_config.max_buffering_delay': 'a duration such as `"10ms"`.',
  'runtime_config.max_rss': 'a size such as `"16Gi"`.',
  'runtime_config.provisioning_timeout': 'a duration such as `"10m"`.',
  'program_config.cache': 'Reuse the binary of a prior compilation with the same checksum.',
  'program_config.profile': 'Compilation profile passed to the build tool.',
  'program_config.runtime_version':
    'Experimental override of the runtime version (a release or a commit). Unset: the platform version.',
  'program_config.use_platform_compiler':
    "Experimental: use the platform's SQL compiler instead of the one matching `runtime_version`.",
};

export const CONFIG_DESCRIPTIONS: Readonly<Record<string, string>> = D;
