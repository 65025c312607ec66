/**
 * quickjs-ng's test262.conf: the features it runs and skips, the paths it excludes, its mode.
 */

/** The parts of the conf the runner follows. */
export interface Test262Conf {
  /** Features listed as supported. */
  features: Set<string>;
  /** Features marked `=skip`. */
  skipFeatures: Set<string>;
  /** Excluded paths (`test262/test/…`; a trailing `/` excludes a folder). */
  exclude: string[];
  /** Paths put back under an excluded folder (`!path`). */
  include: string[];
  /** `[config] mode`: `default` runs each test once, `both` strict and non-strict. */
  mode: string;
}

/**
 * Parses the conf. A feature's value other than `skip` (such as `Atomics=!tcc`, "except on the
 * tcc compiler") enables it; a trailing `# comment` is not part of a value (quickjs-ng's own
 * runner reads `Atomics=!tcc # …` as one unknown word and skips every Atomics test).
 */
export function parseConf(text: string): Test262Conf {
  const conf: Test262Conf = { features: new Set(), skipFeatures: new Set(), exclude: [], include: [], mode: 'default' };
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const [key, value] = line.split('=', 2).map((s) => s.trim()) as [string, string | undefined];
    if (section === 'config' && key === 'mode' && value) conf.mode = value;
    else if (section === 'features') (value === 'skip' ? conf.skipFeatures : conf.features).add(key);
    else if (section === 'exclude') (key.startsWith('!') ? conf.include : conf.exclude).push(key.replace(/^!/, ''));
  }
  return conf;
}
