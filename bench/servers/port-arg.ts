/** `--port N` from the command line (0, the default, picks a free port). */
export function portArg(argv: readonly string[] = process.argv): number {
  const i = argv.indexOf('--port');
  const port = i >= 0 ? Number(argv[i + 1]) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: not a port: ${argv[i + 1]}`);
  return port;
}

/** Prints the line the harness waits for, in the same shape as our server's (stderr). */
export function announce(address: string): void {
  process.stderr.write(`listening on ${address}/mcp\n`);
}
