/** ioredis pipelines and MULTI answer `[error, value]` pairs: the first error is thrown. */
export function replyValues(replies: [Error | null, unknown][] | null, what = 'Redis batch'): unknown[] {
  if (replies === null) throw new Error(`${what} aborted`);
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
