/**
 * Projection of modules into Avro protocols (`protocol-public`, `protocol-entry-points`):
 * one protocol per module, one message per selected public value.
 */
import { nameCollision, unsupportedType, type AvroDiagnostic } from './diagnostics.ts';
import { asDiagnostic, projectFieldsInOrder } from './declarations.ts';
import type { AvroMessage, AvroType, FullName, JsonValue, ProjectionModule, ValueSpecification } from './model.ts';
import { fullNameKey, sortByKey } from './model.ts';
import { avroNamespace, isValidFullName, isValidIdentifier, lowerCamel, upperCamel } from './naming.ts';
import type { Projector } from './projector.ts';
import { projectType } from './type-mapping.ts';

/** Protocol namespace and name of a module: the parent path's namespace, UpperCamel(last segment). */
export function protocolIdentity(packageName: string, modulePath: readonly string[]): FullName {
  if (modulePath.length === 0) {
    const segments = packageName.split('/');
    return { namespace: avroNamespace(packageName, []), name: upperCamel(segments[segments.length - 1] || 'Protocol') };
  }
  return { namespace: avroNamespace(packageName, modulePath.slice(0, -1)), name: upperCamel(modulePath[modulePath.length - 1]) };
}

function moduleSource(packageName: string, module: ProjectionModule): string {
  return `${packageName}:${module.path.join('/')}`;
}

function projectMessage(p: Projector, namespace: string, value: ValueSpecification): AvroMessage {
  if (value.valueKind === 'constant' && value.inputs.length > 0) {
    throw unsupportedType(`constant ${value.source} declares request inputs`, value.source);
  }
  const request = projectFieldsInOrder(p, namespace, value.source, value.inputs, upperCamel(value.name));
  const response = projectType(p, namespace, value.source, value.output, `${upperCamel(value.name)}Response`);
  const props: Record<string, JsonValue> = { 'morphir.fqname': value.source, 'morphir.value-kind': value.valueKind };
  if (value.doc !== undefined) props['morphir.doc'] = value.doc;
  const name = lowerCamel(value.name);
  if (!isValidIdentifier(name)) throw nameCollision(`invalid Avro message name ${name}`, value.source);
  return { name, request, response, props };
}

function projectProtocol(p: Projector, packageName: string, module: ProjectionModule, source: string, fullName: FullName): AvroDiagnostic[] {
  try {
    p.claim(fullNameKey(fullName), `module:${source}`);
  } catch (error) {
    return [asDiagnostic(error, source)];
  }
  // IR v3 has no entry points (they arrive with v4 applications), so that projection selects
  // no messages here and the protocol carries the module's types only.
  const selected = p.options.projection === 'protocol-public' ? [...module.values] : [];
  sortByKey(selected, 'source');
  const diagnostics: AvroDiagnostic[] = [];
  const quarantined = new Set<string>();
  const byName = new Map<string, ValueSpecification[]>();
  for (const value of selected) byName.set(lowerCamel(value.name), [...(byName.get(lowerCamel(value.name)) ?? []), value]);
  for (const [name, values] of byName) {
    if (values.length <= 1) continue;
    for (const value of values) {
      quarantined.add(value.source);
      diagnostics.push({ ...nameCollision(name).diagnostic, source: value.source });
    }
  }
  const messages: AvroMessage[] = [];
  for (const value of selected) {
    if (quarantined.has(value.source)) continue;
    try {
      messages.push(p.transaction(() => projectMessage(p, fullName.namespace, value)));
    } catch (error) {
      diagnostics.push(asDiagnostic(error, value.source));
    }
  }
  sortByKey(messages, 'name');
  const props: Record<string, JsonValue> = { 'morphir.package': packageName, 'morphir.module': module.path.join('/') };
  if (module.doc !== undefined) props['morphir.doc'] = module.doc;
  const rootsBySource = new Map<string, AvroType>();
  for (const root of p.roots.values()) rootsBySource.set(root.source, root.type);
  const typeRoots = module.types.flatMap((declaration) => {
    const type = rootsBySource.get(declaration.source);
    return type ? [type] : [];
  });
  p.insertProtocol({ fullName, messages, props, typeRoots, references: [] });
  return diagnostics;
}

/** Project one protocol per public module; protocols whose names collide are all reported (AVRO003). */
export function projectProtocols(p: Projector, packageName: string, modules: readonly ProjectionModule[]): AvroDiagnostic[] {
  if (p.options.projection === 'schemas') return [];
  const diagnostics: AvroDiagnostic[] = [];
  const candidates: { source: string; fullName: FullName; module: ProjectionModule }[] = [];
  for (const module of modules) {
    const source = moduleSource(packageName, module);
    const fullName = protocolIdentity(packageName, module.path);
    if (!isValidFullName(fullName)) {
      diagnostics.push({ ...nameCollision(`invalid Avro full name ${fullNameKey(fullName)}`).diagnostic, source });
      continue;
    }
    candidates.push({ source, fullName, module });
  }
  sortByKey(candidates, 'source');
  const counts = new Map<string, number>();
  for (const c of candidates) counts.set(fullNameKey(c.fullName), (counts.get(fullNameKey(c.fullName)) ?? 0) + 1);
  for (const candidate of candidates) {
    const key = fullNameKey(candidate.fullName);
    if ((counts.get(key) ?? 0) > 1) {
      diagnostics.push({ ...nameCollision(key).diagnostic, source: candidate.source });
      continue;
    }
    diagnostics.push(...projectProtocol(p, packageName, candidate.module, candidate.source, candidate.fullName));
  }
  return diagnostics;
}
