/**
 * The IR-lint workload (issue 32): a validator a newcomer writes with small npm packages. Rules,
 * configured by a TOML text (smol-toml): record and enum names singular and list fields plural
 * (pluralize), documentation on public types, `since YYYY-MM-DD` in docs a real date not in the
 * future (date-fns; luxon would need Intl, which the guest engine lacks so far), structurally
 * identical definitions under two names (a sha256 fingerprint of each definition,
 * @noble/hashes); the findings also come back as a TOML report. A rule set to `off` is not
 * computed, as an author would skip it (so bench/callgrind can count each rule's share). Pure:
 * the extension and the native callgrind script both call {@link lintIr}.
 */
import pluralize from 'pluralize';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { formatDistanceStrict, formatISO, isAfter, isValid, parseISO } from 'date-fns';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { camel, pascal, readModel, referenceName, type IrTypeDef } from './ir-model.ts';

/** One finding. */
export interface LintFinding {
  rule: string;
  severity: 'error' | 'warning' | 'info';
  subject: string;
  message: string;
}

/** The default rule configuration (TOML, as an author ships it). */
export const DEFAULT_LINT_CONFIG = `
[rules]
singular-type-names = "warning"
plural-list-fields = "info"
documented-public-types = "warning"
valid-since-dates = "error"
duplicate-definitions = "info"

[dates]
today = "2026-12-01"
`;

type Severity = LintFinding['severity'] | 'off';

/** Lints `ir`; returns the findings and the same as a TOML report. */
export function lintIr(ir: unknown, configToml: string = DEFAULT_LINT_CONFIG): { findings: LintFinding[]; report: string } {
  const config = parseToml(configToml) as { rules?: Record<string, Severity>; dates?: { today?: string } };
  const rules = config.rules ?? {};
  const today = parseISO(config.dates?.today ?? '2026-12-01');
  const model = readModel(ir);
  const findings: LintFinding[] = [];
  const add = (rule: string, subject: string, message: string): void => {
    const severity = rules[rule] ?? 'warning';
    if (severity !== 'off') findings.push({ rule, severity, subject, message });
  };
  const on = (rule: string): boolean => rules[rule] !== 'off';
  const fingerprints = new Map<string, string>();
  for (const t of model.types) {
    const subject = `${t.module.map((m) => camel(m)).join('.')}.${pascal(t.name)}`;
    const last = t.name[t.name.length - 1]!;
    if (on('singular-type-names') && !/^\d+$/.test(last) && pluralize.isPlural(last) && pluralize.singular(last) !== last) add('singular-type-names', subject, `type name ends in a plural: call it ${pascal([...t.name.slice(0, -1), pluralize.singular(last)])}`);
    if (t.kind === 'record' && on('plural-list-fields')) lintFields(t, subject, add);
    if (t.doc.trim() === '') add('documented-public-types', subject, 'public type without documentation');
    for (const match of on('valid-since-dates') ? t.doc.matchAll(/since (\d{4}-\d{2}-\d{2})/g) : []) {
      const date = parseISO(match[1]!);
      if (!isValid(date)) add('valid-since-dates', subject, `'since ${match[1]}' is not a date`);
      else if (isAfter(date, today)) add('valid-since-dates', subject, `'since ${match[1]}' is ${formatDistanceStrict(date, today)} in the future`);
    }
    if (!on('duplicate-definitions')) continue;
    const shape = JSON.stringify([t.kind, t.params, t.fields, t.constructors, t.target ?? null]);
    const print = bytesToHex(sha256(utf8ToBytes(shape)));
    const first = fingerprints.get(print);
    if (first) add('duplicate-definitions', subject, `defined exactly as ${first}`);
    else fingerprints.set(print, subject);
  }
  const counts: Record<string, number> = {};
  for (const f of findings) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
  const report = stringifyToml({
    summary: { types: model.types.length, values: model.values.length, findings: findings.length, checked: formatISO(today, { representation: 'date' }) },
    counts,
    finding: findings.slice(0, 1000).map((f) => ({ ...f })),
  });
  return { findings, report };
}

function lintFields(t: IrTypeDef, subject: string, add: (rule: string, subject: string, message: string) => void): void {
  for (const f of t.fields) {
    const ref = referenceName(f.tpe);
    const last = f.name[f.name.length - 1]!;
    if (ref && (ref.local === 'List' || ref.local === 'Set') && pluralize.isSingular(last) && pluralize.plural(last) !== last) {
      add('plural-list-fields', `${subject}.${camel(f.name)}`, `a ${ref.local} field reads better plural: ${camel([...f.name.slice(0, -1), pluralize.plural(last)])}`);
    }
  }
}
