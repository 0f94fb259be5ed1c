/**
 * Baseline, the stdio ceiling: reads a line, writes a precomputed correct `tools/call` result
 * line with the request's id spliced in. No JSON parsing, no validation: nothing a real
 * server could do faster. The result is the same as `add(2, 3)` (the harness's arguments),
 * and an `initialize` gets a minimal valid reply so the 2025 handshake works.
 * Usage: `node bench/servers/echo-stdio.ts`.
 */
const ID_RE = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;
const CALL_RESULT =
  '"result":{"content":[{"type":"text","text":"{\\"sum\\":5}"}],"structuredContent":{"sum":5},"resultType":"complete"}}\n';
const INIT_RESULT =
  '"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1.0.0"}}}\n';

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let nl = buffered.indexOf('\n');
  while (nl >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const id = ID_RE.exec(line)?.[1];
    // Notifications carry no id and get no reply (JSON-RPC 2.0 §4.1).
    if (id !== undefined) {
      const result = line.includes('"initialize"') ? INIT_RESULT : CALL_RESULT;
      process.stdout.write(`{"jsonrpc":"2.0","id":${id},${result}`);
    }
    nl = buffered.indexOf('\n');
  }
});
