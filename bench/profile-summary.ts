import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// `npx tsx bench/profile-summary.ts [file.cpuprofile] [--window FROM:TO]`: where the API server's CPU
// time went, from the newest profile `npm run bench -- --cpu-prof` left in bench/profiles/ (or any
// `node --cpu-prof` profile). Self time by function and by package or source file, so that "is it
// PostgreSQL parsing, our mapping or JSON?" has a one-command answer without opening DevTools.
// --window keeps only the samples from FROM to TO seconds after the profile's start (a whole-process
// `node --cpu-prof` profile: its steady state without start-up and shutdown).

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const dir = new URL('./profiles/', import.meta.url).pathname;
const newest = (): string => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const [file] = files.map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!file) throw new Error(`no .cpuprofile in ${dir}: run npm run bench -- --cpu-prof first`);
  return file;
};

const args = process.argv.slice(2);
const windowAt = args.indexOf('--window');
const [fromSecs, toSecs] = windowAt >= 0 ? String(args.splice(windowAt, 2)[1]).split(':').map(Number) : [0, Infinity];
if (fromSecs === undefined || toSecs === undefined || Number.isNaN(fromSecs) || Number.isNaN(toSecs))
  throw new Error('--window takes FROM:TO in seconds since the profile started, e.g. 40:100');
const file = args[0] ?? newest();
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/** node_modules/<package> or src/<file>; V8's own entries ("(garbage collector)") as they are. */
const where = (url: string, name: string): string => {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const src = /\/(src|bench)\/(.+)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url.replace(/^node:/, 'node:');
};

const selfByFunction = new Map<string, number>();
const selfByPlace = new Map<string, number>();
let total = 0;
let idle = 0;
// Sample times in µs since the profile's start.
const times: number[] = [];
profile.timeDeltas.reduce((t, dt) => (times.push(t + dt), t + dt), 0);
const inWindow = (i: number): boolean => (times[i] ?? 0) >= fromSecs * 1e6 && (times[i] ?? 0) <= toSecs * 1e6;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const dt = profile.timeDeltas[i] ?? 0;
  if (!node || !inWindow(i)) return;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)') {
    idle += dt;
    return;
  }
  const place = where(url, functionName);
  const fn = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`;
  selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + dt);
  selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + dt);
  total += dt;
});

const top = (m: Map<string, number>, n: number): string =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `  ${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1e6).toFixed(2).padStart(7)} s  ${k}`)
    .join('\n');

// Percentages of busy time: the profile spans the whole process life, idle waits included.
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle\n\n`);
process.stdout.write('Self time by package or file (% of busy):\n');
process.stdout.write(`${top(selfByPlace, 15)}\n\nSelf time by function:\n${top(selfByFunction, 25)}\n`);
