/**
 * Avro JSON for types and named schemas, either inline (a named schema is defined at its first
 * use, then referenced by full name) or reference-only (every named type by full name).
 */
import type { AvroField, AvroType, FullName, JsonValue, NamedSchema, Properties } from './model.ts';
import { fullNameKey, NO_PROPERTIES } from './model.ts';

type JsonObject = { [key: string]: JsonValue };

/** Which named schemas an inline rendering may define. */
export type DefinitionScope = { kind: 'all' } | { kind: 'owned' } | { kind: 'selected'; names: ReadonlySet<string> };

/** Names being defined (cycle guard) and already defined in the current document. */
export interface InlineState {
  readonly active: Set<string>;
  readonly defined: Set<string>;
}

/** A fresh inline state, optionally seeded with names defined elsewhere. */
export function inlineState(defined: Iterable<string> = []): InlineState {
  return { active: new Set(), defined: new Set(defined) };
}

/*
 * Objects are built with their keys in sorted order for the properties this backend writes
 * (`morphir.*`, `precision`, `scale`), so canonicalJson finds them in order and copies
 * nothing. A key the object sets itself wins over a custom property of the same name.
 */

/** Copy properties into a fresh object. */
export function propertiesObject(props: Properties): JsonObject {
  return props === NO_PROPERTIES ? {} : ({ ...props } as JsonObject);
}

const { hasOwnProperty } = Object.prototype;

/** Add the properties `object` does not already have. */
function addProperties(object: JsonObject, props: Properties): JsonObject {
  if (props === NO_PROPERTIES) return object;
  for (const key of Object.keys(props)) if (!hasOwnProperty.call(object, key)) object[key] = props[key];
  return object;
}

/** Put a type under `"type"` beside custom properties and an optional `logicalType`. */
export function decorateType(value: JsonValue, props: Properties, logicalType?: string): JsonObject {
  const object = addProperties(logicalType !== undefined ? { logicalType } : {}, props);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { ...object, ...value };
  object.type = value;
  return object;
}

function insertName(object: JsonObject, name: FullName): void {
  object.name = name.name;
  if (name.namespace !== '') object.namespace = name.namespace;
}

/** Renders types against one package's named schemas. */
export class JsonTypeRenderer {
  /** {@link typeReferenceOnly} as a value, made once rather than per schema. */
  private readonly renderReferenceOnly = (tpe: AvroType): JsonValue => this.type(tpe, fullNameKey);

  constructor(
    private readonly schemas: ReadonlyMap<string, NamedSchema>,
    private readonly linkedNames: ReadonlySet<string>,
  ) {}

  private allows(scope: DefinitionScope, key: string): boolean {
    if (scope.kind === 'all') return true;
    if (scope.kind === 'owned') return !this.linkedNames.has(key);
    return scope.names.has(key);
  }

  /** Define the named schema here unless it is active, defined already, or out of scope. */
  namedInline(name: FullName, state: InlineState, scope: DefinitionScope): JsonValue {
    const key = fullNameKey(name);
    const schema = this.schemas.get(key);
    if (!schema || state.active.has(key) || state.defined.has(key) || !this.allows(scope, key)) return key;
    state.active.add(key);
    state.defined.add(key);
    const value = this.named(schema, (tpe) => this.typeInline(tpe, state, scope));
    state.active.delete(key);
    return value;
  }

  /** A named schema whose fields reference every named type by full name. */
  namedReferenceOnly(schema: NamedSchema): JsonValue {
    return this.named(schema, this.renderReferenceOnly);
  }

  private named(schema: NamedSchema, renderType: (tpe: AvroType) => JsonValue): JsonObject {
    const object: JsonObject = {};
    if (schema.doc !== undefined) object.doc = schema.doc;
    if (schema.kind === 'record') object.fields = schema.fields.map((field) => this.field(field, renderType));
    addProperties(object, schema.props);
    insertName(object, schema.fullName);
    if (schema.kind === 'enum') object.symbols = [...schema.symbols];
    object.type = schema.kind;
    return object;
  }

  /** A record field or request parameter. */
  field(field: AvroField, renderType: (tpe: AvroType) => JsonValue): JsonObject {
    const object = propertiesObject(field.props);
    object.name = field.name;
    object.type = renderType(field.type);
    return object;
  }

  /** A field with reference-only types. */
  fieldReferenceOnly(field: AvroField): JsonObject {
    return this.field(field, this.renderReferenceOnly);
  }

  /** A type, defining named schemas inline at first use. */
  typeInline(tpe: AvroType, state: InlineState, scope: DefinitionScope): JsonValue {
    return this.type(tpe, (name) => this.namedInline(name, state, scope));
  }

  /** A type whose named parts are full-name references. */
  typeReferenceOnly(tpe: AvroType): JsonValue {
    return this.type(tpe, fullNameKey);
  }

  private type(tpe: AvroType, named: (name: FullName) => JsonValue): JsonValue {
    switch (tpe.kind) {
      case 'primitive':
        return tpe.name;
      case 'named':
        return named(tpe.fullName);
      case 'array': {
        const object = addProperties({ items: this.type(tpe.items, named) }, tpe.props);
        object.type = 'array';
        return object;
      }
      case 'map': {
        const object = propertiesObject(tpe.props);
        object.type = 'map';
        object.values = this.type(tpe.values, named);
        return object;
      }
      case 'union':
        return tpe.branches.map((branch) => this.type(branch, named));
      case 'logical':
        return decorateType(this.type(tpe.physical, named), tpe.props, tpe.logicalType);
      case 'annotated':
        return decorateType(this.type(tpe.physical, named), tpe.props);
    }
  }
}
