/**
 * Provider selection: among installed extensions, the ones whose claims meet the need; the
 * project scope is consulted before the user scope, and two candidates in the same scope are an
 * "ambiguous provider" error. The winner is verified against its lock before it is returned
 * (a remote's token resolved with `options.redactor` taking it).
 */
import type { ClaimSet } from '../protocol/index.ts';
import { LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { discoverExtensions } from './discover.ts';
import type { InstalledExtension } from './discover.ts';
import type { LaunchSpec } from './launch.ts';
import { claimsOf, verifyInstalled } from './prepare.ts';
import type { ClaimReadOptions } from './prepare.ts';
import { describeNeed, matchNeed } from './provider-need.ts';
import type { ProviderNeed } from './provider-need.ts';
import { scopesOf } from './paths.ts';
import type { RegistryPaths } from './paths.ts';
import type { Redactor } from './redact.ts';

/** A provider chosen and verified, ready to launch. */
export interface SelectedProvider {
  installed: InstalledExtension;
  claims: ClaimSet;
  spec: LaunchSpec;
  /** For a frontend: the language id it was chosen for. */
  language?: string;
}

/**
 * Selects the one installed provider for `need`. Throws MepError(ERR_REGISTRY) with
 * `data.reason` `'ambiguous-provider'` (listing both) or `'no-provider'` (saying where it looked,
 * what almost fit, and how to install one).
 *
 * @example
 * const provider = await selectProvider(registryPaths({ cwd }), { kind: 'backend', target: 'avro', irVersion: '3' });
 */
export async function selectProvider(paths: RegistryPaths, need: ProviderNeed, options: ClaimReadOptions & { redactor?: Redactor } = {}): Promise<SelectedProvider> {
  const context = { paths, ...(options.redactor ? { redactor: options.redactor } : {}) };
  const { extensions, problems } = await discoverExtensions(paths);
  const nearMisses: string[] = [];
  const unreadable: string[] = problems.map((p) => `${p.dir}: ${p.message}`);
  const failures: MepError[] = [];
  for (const scope of scopesOf(paths)) {
    const matches: { installed: InstalledExtension; claims: ClaimSet; language?: string }[] = [];
    for (const installed of extensions.filter((e) => e.scope === scope.scope)) {
      let claims: ClaimSet;
      try {
        claims = (await claimsOf(installed, context, options)).claims;
      } catch (error) {
        if (!isMepError(error)) throw error;
        unreadable.push(`${installed.id}: ${error.message}`);
        failures.push(error);
        continue;
      }
      const match = matchNeed(claims, need);
      if (match.ok) matches.push({ installed, claims, ...(match.language ? { language: match.language } : {}) });
      else if (match.nearMiss) nearMisses.push(`${installed.id} offers ${match.nearMiss}`);
    }
    if (matches.length > 1) {
      const listed = matches.map((m) => `${m.installed.id} ${m.installed.manifest.version} (${m.installed.dir})`);
      throw new MepError(
        LocalErrorCode.Registry,
        `Ambiguous provider: ${matches.length} extensions in the ${scope.scope} scope provide ${describeNeed(need)}: ${listed.join('; ')}. ${need.kind === 'backend' && need.target === undefined ? 'Pass --target <target> or' : need.kind === 'frontend' ? 'Pass --lang <language> or' : 'Pass'} --extension <id> to choose one, or remove one with 'mep remove <id>'.`,
        { data: { reason: 'ambiguous-provider', need, scope: scope.scope, candidates: matches.map((m) => ({ id: m.installed.id, version: m.installed.manifest.version, dir: m.installed.dir })) } },
      );
    }
    const [chosen] = matches;
    if (chosen) return { ...chosen, spec: await verifyInstalled(chosen.installed, context) };
  }
  // One extension that could not even be read (tampered, broken) is the likelier intended
  // provider: its own refusal says more than "no provider".
  if (failures.length === 1) throw failures[0];
  const searched = scopesOf(paths).map((s) => `${s.extensions} (${extensions.filter((e) => e.scope === s.scope).length} installed)`);
  const hints = [...nearMisses, ...unreadable.map((u) => `could not read ${u}`)];
  throw new MepError(
    LocalErrorCode.Registry,
    `No installed extension provides ${describeNeed(need)}. Looked in ${searched.join(' and ')}.${hints.length ? ` ${hints.join('. ')}.` : ''} Install one with 'mep install <directory|git-url|archive>', or pass --extension <path-or-id>${need.kind === 'frontend' ? ' (and --lang <language> to name the language)' : ''}.`,
    { data: { reason: 'no-provider', need, searched: scopesOf(paths).map((s) => s.extensions), nearMisses, unreadable } },
  );
}
