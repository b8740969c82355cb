// A stand-in for `svc pipeline` in `npm run bench:kubernetes` (image svc-bench/pipeline-stub in
// test/cluster/images.json): it answers GET /status like a running pipeline, and nothing else, so
// 200 pods fit on a 2-core machine. It measures the runner and the control plane, not the pipeline
// process. Arguments (`pipeline --config-file=…`) are ignored.
import { createServer } from 'node:http';

const host = process.env.SVC_BIND_ADDRESS || process.env.POD_IP || '127.0.0.1';
const port = Number(process.env.SVC_STUB_PORT || 8080);
const status = JSON.stringify({
  runtime_status: 'Running',
  runtime_status_details: {},
  runtime_desired_status: 'Running',
  storage_status_details: { checkpoints: [] },
});

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.split('?')[0] === '/status') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(status);
  } else {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error_code":"NotFound","message":"stub"}');
  }
});
server.listen(port, host);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`pipeline-stub: ${signal}, exiting\n`);
    server.close(() => process.exit(0));
  });
}
process.on('exit', (code) => process.stderr.write(`pipeline-stub: exit ${code}\n`));
