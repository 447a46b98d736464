/** Runs `then` after `first` whether or not `first` failed; the first failure is thrown. */
export async function both<T>(first: Promise<T>, then: () => Promise<unknown>): Promise<T> {
  const [a, b] = await Promise.allSettled([first, first.catch(() => undefined).then(then)]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return a.value;
}
