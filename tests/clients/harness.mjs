// The stand for the client tests: tests/clients/flow_upstream.py (the serve tests' mock upstream
// with the flows' models) and `cmfpipe serve` in front of it with tests/clients/pipeline.yaml,
// both child processes on 127.0.0.1 with ports of their own choosing. The upstream records every
// request it receives; a test reads what arrived since its mark.
//
// run_clients.sh sets CMFPIPE_CLI (the cmfpipe of the build) and CMFPIPE_SOURCE_DIR.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const source = process.env.CMFPIPE_SOURCE_DIR;
const cli = process.env.CMFPIPE_CLI;
if (!source || !cli) throw new Error('CMFPIPE_SOURCE_DIR and CMFPIPE_CLI must be set (run_clients.sh)');

export const EMAIL = 'ada@example.com';
export const REDACTED = '[REDACTED:EMAIL]';
// What a client sends and gets back: short per call, never unbounded.
export const CLIENT_TIMEOUT_MS = 15000;
export const TEST_TIMEOUT = { timeout: 60000 };

// Children still running when this process exits (a failed test, an uncaught error) go with it.
const children = new Set();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

// Starts `words` and waits (at most 20 s) until what it printed matches `pattern` (its first
// group is the port).
function startListening(words, pattern, name) {
  const child = spawn(words[0], words.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let printed = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within 20 s:\n${printed}`));
    }, 20000);
    const seen = (chunk) => {
      printed += chunk;
      const match = printed.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]), printed: () => printed });
      }
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${name} did not start: ${error.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening:\n${printed}`));
    });
  });
}

export class Stand {
  // extraArgs: more `cmfpipe serve` options (e.g. another --config).
  static async start(extraArgs = []) {
    const stand = new Stand();
    stand.dir = mkdtempSync(join(tmpdir(), 'cmfpipe-clients-'));
    stand.recordFile = join(stand.dir, 'upstream.jsonl');
    try {
      stand.upstream = await startListening(
        ['python3', join(source, 'tests/clients/flow_upstream.py'), stand.recordFile],
        /listening on (\d+)/,
        'flow_upstream.py',
      );
      const upstreamUrl = `http://127.0.0.1:${stand.upstream.port}/v1`;
      stand.serve = await startListening(
        [
          cli,
          'serve',
          '--listen',
          '127.0.0.1:0',
          '--config',
          join(source, 'tests/clients/pipeline.yaml'),
          '--upstream',
          `openai=${upstreamUrl}`,
          '--upstream',
          `anthropic=${upstreamUrl}`,
          '--upstream-timeout',
          '20',
          ...extraArgs,
        ],
        /listening on http:\/\/127\.0\.0\.1:(\d+)/,
        'cmfpipe serve',
      );
    } catch (error) {
      stand.stop();
      throw error;
    }
    stand.origin = `http://127.0.0.1:${stand.serve.port}`;
    stand.baseURL = `${stand.origin}/v1`;
    stand.marked = 0;
    return stand;
  }

  // Every request the upstream received, in order: {path, headers, body} with body parsed.
  records() {
    const lines = readFileSync(this.recordFile, 'utf8')
      .split('\n')
      .filter((line) => line);
    return lines.map((line) => {
      const record = JSON.parse(line);
      if (typeof record.body === 'string') {
        try {
          record.body = JSON.parse(record.body);
        } catch {
          // kept as the text it was (a GET has none)
        }
      }
      return record;
    });
  }

  // From now on, received() is what arrives after this call.
  mark() {
    this.marked = this.records().length;
  }

  received() {
    return this.records().slice(this.marked);
  }

  // What cmfpipe serve printed (its decision log included).
  serveLog() {
    return this.serve ? this.serve.printed() : '';
  }

  stop() {
    for (const proc of [this.serve, this.upstream]) {
      if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

// The one record of the calls since the mark, after checking there is exactly one.
export function onlyRecord(stand, assert) {
  const received = stand.received();
  assert.equal(received.length, 1, `upstream calls: ${JSON.stringify(received.map((r) => r.path))}`);
  return received[0];
}

// Collects an async iterable (a stream) into an array, within CLIENT_TIMEOUT_MS.
export async function collect(iterable) {
  const items = [];
  for await (const item of iterable) items.push(item);
  return items;
}
