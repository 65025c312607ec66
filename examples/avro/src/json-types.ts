/**
 * Avro JSON for types and named schemas, either inline (a named schema is defined at its first
 * use, then referenced by full name) or reference-only (every named type by full name).
 */
import type { AvroField, AvroType, FullName, JsonValue, NamedSchema, Properties } from './model.ts';
import { sortKeys } from './json-syntax.ts';
import { fullNameKey, NO_PROPERTIES } from './model.ts';
import { fillable, fillTemplate, holePaths, type SchemaTemplate } from './schema-template.ts';

type JsonObject = { [key: string]: JsonValue };

/** Which named schemas an inline rendering may define. */
export type DefinitionScope = { kind: 'all' } | { kind: 'owned' } | { kind: 'selected'; names: ReadonlySet<string> };

/** Names to look up: a Set, or a Map keyed by name. */
export interface NameSet {
  has(name: string): boolean;
}

const NO_NAMES: NameSet = new Set<string>();

/** Names being defined (cycle guard) and already defined in the current document. */
export interface InlineState {
  readonly active: Set<string>;
  readonly defined: Set<string>;
  /** Names defined elsewhere, looked up rather than copied (in shared mode, every schema). */
  readonly predefined: NameSet;
}

/** A fresh inline state, optionally with names defined elsewhere. */
export function inlineState(predefined: NameSet = NO_NAMES): InlineState {
  return { active: new Set(), defined: new Set(), predefined };
}

/** Whether `key` is defined in the document or elsewhere. */
export function isDefined(state: InlineState, key: string): boolean {
  return state.defined.has(key) || state.predefined.has(key);
}

/*
 * Every object is returned with its keys in sorted order, so what this renderer alone builds is
 * written without canonicalJson's sorting walk (see orderedJson). The keys this backend writes
 * are set in sorted order, custom properties between two of them; an object whose properties
 * do not fall in order there is rebuilt in order. A key the object sets itself wins over a
 * custom property of the same name.
 */

const { hasOwnProperty } = Object.prototype;

/**
 * Add the properties `object` does not already have, their values with sorted keys, and say
 * whether they keep it in key order: each after `after` (the object's last key so far, or '')
 * and the property before it, and before `before` (the next key the object will set). Knowing
 * that here saves listing the object's keys again (see inKeyOrder).
 */
function addProperties(object: JsonObject, props: Properties, after: string, before: string): boolean {
  if (props === NO_PROPERTIES) return true;
  const keys = Object.keys(props);
  let ordered = true;
  let last = after;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    // A key the object lacks reads undefined (own keys hold no undefined): only another value,
    // maybe inherited (`toString`), asks hasOwnProperty, a native call through `call`.
    if (object[key] !== undefined && hasOwnProperty.call(object, key)) continue;
    if (key <= last || key >= before) ordered = false;
    last = key;
    const value = props[key];
    // Most property values are strings or numbers: no sortKeys call for them.
    object[key] = value !== null && typeof value === 'object' ? sortKeys(value) : value;
  }
  return ordered;
}

/** `object` with its keys sorted: a copy, or itself when `ordered` or its keys are in order. */
function inKeyOrder(object: JsonObject, ordered = false): JsonObject {
  if (ordered) return object;
  const keys = Object.keys(object);
  ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = keys[i - 1] < keys[i];
  if (ordered) return object;
  const out: JsonObject = {};
  for (const key of keys.sort()) out[key] = object[key];
  return out;
}

/** Put a type under `"type"` beside custom properties and an optional `logicalType`. */
function decorateType(value: JsonValue, props: Properties, logicalType?: string): JsonObject {
  const object: JsonObject = logicalType !== undefined ? { logicalType } : {};
  const ordered = addProperties(object, props, logicalType !== undefined ? 'logicalType' : '', 'type');
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return inKeyOrder({ ...object, ...value });
  object.type = value;
  return inKeyOrder(object, ordered);
}

function insertName(object: JsonObject, name: FullName): void {
  object.name = name.name;
  if (name.namespace !== '') object.namespace = name.namespace;
}

/** Renders types against one package's named schemas. */
export class JsonTypeRenderer {
  /** {@link typeReferenceOnly} as a value, made once rather than per schema. */
  private readonly renderReferenceOnly = (tpe: AvroType): JsonValue => this.type(tpe, fullNameKey);
  /**
   * A decorated primitive's JSON (`decimal`, `date`, a mapped type) by type object, made once:
   * it depends on nothing else, and a model shares a few such types across many fields. The
   * objects are never changed once made (callers copy before adding keys), so uses share them.
   */
  private readonly decoratedPrimitives = new WeakMap<AvroType, JsonObject>();
  /** Each named schema's template for inline renderings, or null when it has none. */
  private readonly templates = new Map<NamedSchema, SchemaTemplate | null>();

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
    if (!schema || state.active.has(key) || isDefined(state, key) || !this.allows(scope, key)) return key;
    state.active.add(key);
    state.defined.add(key);
    const template = this.template(schema);
    let value: JsonValue;
    if (template === null) value = this.named(schema, (tpe) => this.typeInline(tpe, state, scope));
    else {
      // The holes in document order: each definition's names are defined before the next hole's.
      const values: JsonValue[] = [];
      for (let i = 0; i < template.holes.length; i++) values.push(this.namedInline(template.holes[i], state, scope));
      value = fillTemplate(template, values);
    }
    state.active.delete(key);
    return value;
  }

  /** The schema's template (schema-template.ts), made at its first use; null when it has none. */
  private template(schema: NamedSchema): SchemaTemplate | null {
    let template = this.templates.get(schema);
    if (template !== undefined) return template;
    template = null;
    let plain = true;
    const paths: (string | number)[][] = [];
    if (schema.kind === 'record') {
      for (let i = 0; i < schema.fields.length && plain; i++) {
        plain = fillable(schema.fields[i].type);
        holePaths(schema.fields[i].type, ['fields', i, 'type'], paths);
      }
    }
    if (plain) {
      // Each named type's place holds its full name until a use fills it.
      const holes: FullName[] = [];
      const tree = this.named(schema, (tpe) => this.type(tpe, (name) => (holes.push(name), fullNameKey(name))));
      if (holes.length === paths.length) template = { tree, holes, paths };
    }
    this.templates.set(schema, template);
    return template;
  }

  /** A named schema whose fields reference every named type by full name. */
  namedReferenceOnly(schema: NamedSchema): JsonValue {
    return this.named(schema, this.renderReferenceOnly);
  }

  private named(schema: NamedSchema, renderType: (tpe: AvroType) => JsonValue): JsonObject {
    const object: JsonObject = {};
    if (schema.doc !== undefined) object.doc = schema.doc;
    if (schema.kind === 'record') {
      // A loop, not `map`: a callback per field is a native-to-JS call in QuickJS.
      const fields: JsonValue[] = [];
      for (let i = 0; i < schema.fields.length; i++) fields[i] = this.field(schema.fields[i], renderType);
      object.fields = fields;
    }
    // The keys set so far end with `fields` (a record), else `doc` when there is one.
    const lastKey = schema.kind === 'record' ? 'fields' : object.doc === undefined ? '' : 'doc';
    const ordered = addProperties(object, schema.props, lastKey, 'name');
    insertName(object, schema.fullName);
    if (schema.kind === 'enum') object.symbols = schema.symbols.slice();
    object.type = schema.kind;
    return inKeyOrder(object, ordered);
  }

  /** A record field or request parameter. */
  field(field: AvroField, renderType: (tpe: AvroType) => JsonValue): JsonObject {
    // A primitive type is its name in every rendering: no renderer call for it (most fields).
    const type = field.type.kind === 'primitive' ? field.type.name : renderType(field.type);
    if (field.props === NO_PROPERTIES) return { name: field.name, type };
    const object: JsonObject = {};
    const ordered = addProperties(object, field.props, '', 'name');
    object.name = field.name;
    object.type = type;
    return inKeyOrder(object, ordered);
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
        const items = this.type(tpe.items, named);
        if (tpe.props === NO_PROPERTIES) return { items, type: 'array' };
        const object: JsonObject = { items };
        const ordered = addProperties(object, tpe.props, 'items', 'type');
        object.type = 'array';
        return inKeyOrder(object, ordered);
      }
      case 'map': {
        const values = this.type(tpe.values, named);
        if (tpe.props === NO_PROPERTIES) return { type: 'map', values };
        const object: JsonObject = {};
        const ordered = addProperties(object, tpe.props, '', 'type');
        object.type = 'map';
        object.values = values;
        return inKeyOrder(object, ordered);
      }
      case 'union': {
        const branches: JsonValue[] = [];
        for (let i = 0; i < tpe.branches.length; i++) branches[i] = this.type(tpe.branches[i], named);
        return branches;
      }
      case 'logical':
      case 'annotated': {
        const logicalType = tpe.kind === 'logical' ? tpe.logicalType : undefined;
        if (tpe.physical.kind !== 'primitive') return decorateType(this.type(tpe.physical, named), tpe.props, logicalType);
        let decorated = this.decoratedPrimitives.get(tpe);
        if (decorated === undefined) {
          decorated = decorateType(tpe.physical.name, tpe.props, logicalType);
          this.decoratedPrimitives.set(tpe, decorated);
        }
        return decorated;
      }
    }
  }
}
