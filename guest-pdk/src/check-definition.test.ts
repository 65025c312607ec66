import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../host/src/protocol/errors.ts';
import { checkDefinition, type DefinitionProblem } from './check-definition.ts';
import { defineExtension } from './define-extension.ts';

const info = { id: 'acme.x', name: 'X', version: '1.0.0' };
const generate = () => ({ artifacts: [] });

/** The refusal of `definition`: its code, reason, id and the members it names. */
function refusal(definition: unknown): { code: unknown; reason: unknown; extension: unknown; paths: string[]; problems: DefinitionProblem[]; message: string } {
  try {
    defineExtension(definition as never);
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    const data = error.data as { reason: string; extension?: string; problems: DefinitionProblem[] };
    return { code: error.code, reason: data.reason, extension: data.extension, paths: data.problems.map((p) => p.path), problems: data.problems, message: error.message };
  }
  throw new Error(`defineExtension accepted ${JSON.stringify(definition)}`);
}

const Check = suite('defineExtension :: the definition is checked once, when defined');

Check('should refuse a frontend with irVersion in place of irVersions, naming both and suggesting the right one', () => {
  const r = refusal({ info, frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersion: ['3'], compile: () => ({ irVersion: '3', ir: null }) } });
  assert.equal([r.code, r.reason, r.extension], [LocalErrorCode.Usage, 'bad-definition', 'acme.x']);
  assert.equal(r.paths.sort(), ['frontend.irVersion', 'frontend.irVersions']);
  assert.match(r.problems.find((p) => p.path === 'frontend.irVersion')?.problem ?? '', /irVersions\?/);
  // One line: it is what Node prints above the stack of a process that dies at start-up.
  assert.not.match(r.message, /\n/);
});

Check('should refuse a backend without targets, or with none, and wrong types, each by its member', () => {
  assert.equal(refusal({ info, backend: { irVersions: ['3'], generate } }).paths, ['backend.targets']);
  assert.equal(refusal({ info, backend: { targets: [], irVersions: ['3'], generate } }).paths, ['backend.targets']);
  assert.equal(refusal({ info, backend: { targets: 'avro', irVersions: [3], generate: 'generate' } }).paths, ['backend.targets', 'backend.irVersions[0]', 'backend.generate']);
  assert.equal(refusal({ info, validator: { irVersions: [], validate: () => ({}) } }).paths, ['validator.irVersions']);
  assert.equal(refusal({ info, transform: { irVersions: ['3'] } }).paths, ['transform.transform']);
  assert.equal(refusal({ info, frontend: { languages: [{ fileExtensions: '.elm' }], irVersions: ['3'], incremental: 'yes', compile: () => ({ irVersion: '3', ir: null }) } }).paths, [
    'frontend.languages[0].id',
    'frontend.languages[0].fileExtensions',
    'frontend.incremental',
  ]);
});

Check('should refuse a bad identity, requiresHost that is not single comparators, and no kind at all, in one refusal', () => {
  const r = refusal({ info: { id: '', name: 1 }, requiresHost: ['^0.1.0', '>=0.1.0'] });
  assert.equal(r.paths, ['info.id', 'info.name', 'info.version', 'requiresHost[0]', 'the definition']);
  assert.is(r.extension, undefined);
  assert.equal(refusal(undefined).paths, ['the definition']);
  assert.equal(refusal({ backend: { targets: ['t'], irVersions: ['3'], generate } }).paths, ['info']);
});

Check('should refuse an unknown member anywhere but a language, suggesting the member it most likely means', () => {
  const typo = refusal({ info, backend: { targets: ['t'], irVersions: ['3'], generate }, tranform: {} });
  assert.equal(typo.paths, ['tranform']);
  assert.match(typo.problems[0]?.problem ?? '', /transform\?/);
  const stranger = refusal({ info: { ...info, description: 'd' }, backend: { targets: ['t'], irVersions: ['3'], generate, extra: true } });
  assert.equal(stranger.paths.sort(), ['backend.extra', 'info.description']);
});

Check('should accept every valid definition unchanged: the author object, languages with members of their own', () => {
  const definition = {
    info,
    requiresHost: ['>=0.1.0', '<0.2.0'],
    frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'], future: 1 }], irVersions: ['3'], incremental: true, multiDocument: false, compile: () => ({ irVersion: '3', ir: null }) },
    backend: { targets: ['t'], irVersions: ['3'], generate },
    validator: { irVersions: ['3'], validate: () => ({}) },
    transform: { irVersions: ['3'], transform: () => ({}) },
  };
  assert.is(checkDefinition(definition), definition);
  const extension = defineExtension(definition);
  assert.is(extension.definition, definition);
  assert.equal(extension.claims.extension.types, ['frontend', 'backend', 'validator', 'transform']);
  assert.equal(extension.capabilities.frontend?.languages, [{ id: 'elm', fileExtensions: ['.elm'], future: 1 }]);
});

Check('should keep the message to a line of bounded length, with every problem in data', () => {
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`stray${i}`, i]));
  const r = refusal({ info, backend: { targets: ['t'], irVersions: ['3'], generate }, ...many });
  assert.is(r.problems.length, 40);
  assert.ok(r.message.length < 2000, `${r.message.length} characters`);
});

Check.run();
