/**
 * Settings of the addon's allocator (mimalloc v2) that leave it no memory at all. mimalloc reads
 * `MIMALLOC_*` variables as the addon loads; with `MIMALLOC_DISALLOW_OS_ALLOC` (or its old name
 * `MIMALLOC_LIMIT_OS_ALLOC`) on and nothing reserved (`MIMALLOC_RESERVE_OS_MEMORY`), its first
 * allocation fails, and a failed allocation aborts the whole process before any error can be
 * thrown. They are read here first, as mimalloc reads them, so loading fails with a coded error.
 */

/**
 * The variable that would leave the allocator no memory, named as it is set, or `undefined`.
 */
export function allocatorRefusal(env: NodeJS.ProcessEnv = process.env): string | undefined {
  // Any reservation is rounded up to one arena block (32 MiB), which the allocator can use.
  const reserve = read(env, 'reserve_os_memory');
  if (reserve && kibOf(reserve[1]) > 0) return undefined;
  // Huge pages (`MIMALLOC_RESERVE_HUGE_OS_PAGES`) are not counted: without them in the system,
  // loading aborted; the hint names the reservation that works everywhere.
  const refusal = read(env, 'disallow_os_alloc') ?? read(env, 'limit_os_alloc');
  return refusal && optionValue(refusal[1]) !== 0 ? refusal[0] : undefined;
}

/** `MIMALLOC_<option>`'s name and value as set: the first whose name matches, whatever its case. */
function read(env: NodeJS.ProcessEnv, option: string): [string, string] | undefined {
  const wanted = `MIMALLOC_${option}`.toUpperCase();
  const name = Object.keys(env).find((k) => k.toUpperCase() === wanted);
  // mimalloc reads the first 64 bytes of a value.
  return name === undefined ? undefined : [name, (env[name] ?? '').slice(0, 64)];
}

/** A word for on (1) or off (0), empty (on); else a whole number as `strtol` reads it, or nothing. */
function word(upper: string): number | undefined {
  if (['', '1', 'TRUE', 'YES', 'ON'].includes(upper)) return 1;
  if (['0', 'FALSE', 'NO', 'OFF'].includes(upper)) return 0;
  return undefined;
}

/** An on/off option's value as mimalloc takes it; a value it does not read leaves the default, 0. */
function optionValue(value: string): number {
  const upper = value.toUpperCase();
  const number = /^\s*([+-]?\d+)$/.exec(upper);
  return word(upper) ?? (number ? Number(number[1]) : 0);
}

/** A size option's value in KiB as mimalloc takes it: bytes, or a number with K, M, G or T, then iB or B. */
function kibOf(value: string): number {
  const upper = value.toUpperCase();
  const said = word(upper);
  if (said !== undefined) return said;
  const size = /^\s*([+-]?\d+)([KMGT]?)(IB|B)?$/.exec(upper);
  if (!size) return 0;
  const n = Math.max(0, Number(size[1]));
  const scale = { '': 1 / 1024, K: 1, M: 1024, G: 1024 ** 2, T: 1024 ** 3 }[size[2]] ?? 0;
  return Math.ceil(n * scale);
}
