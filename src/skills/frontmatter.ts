/**
 * A SKILL.md's YAML front matter (Agent Skills specification), parsed with the `yaml` package
 * into the JSON object that skill entries carry verbatim (SEP-2640 §Frontmatter), and the
 * checks a skill must pass to be served: `name` and `description` present, `name` following
 * the naming rules and equal to the skill folder's name.
 */
import { parse } from 'yaml';

/** Agent Skills naming rules: 1-64 of a-z, 0-9 and `-`, no leading, trailing or double `-`. */
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export type Frontmatter = { name: string; description: string } & Record<string, unknown>;

/** The front matter of `text`, or the reason it is not usable (the skill is then not served). */
export function readFrontmatter(
  text: string,
  folderName: string,
): { frontmatter: Frontmatter } | { problem: string } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const block = BLOCK.exec(body);
  if (!block) return { problem: 'SKILL.md does not begin with a --- delimited YAML front matter block' };
  let parsed: unknown;
  try {
    // The YAML 1.2 core schema: dates stay strings, so the object is plain JSON.
    parsed = parse(block[1] as string, { schema: 'core', uniqueKeys: true });
  } catch (err) {
    return { problem: `the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'the front matter is not a YAML mapping' };
  }
  const fm = JSON.parse(JSON.stringify(parsed)) as Record<string, unknown>;
  if (typeof fm.name !== 'string' || fm.name === '') return { problem: 'the front matter has no name' };
  if (typeof fm.description !== 'string' || fm.description.trim() === '') {
    return { problem: 'the front matter has no description' };
  }
  if (!SKILL_NAME.test(fm.name)) {
    return {
      problem: `name "${fm.name}" breaks the naming rules (1-64 of a-z, 0-9 and -, no leading, trailing or double -)`,
    };
  }
  if (fm.name !== folderName)
    return { problem: `name "${fm.name}" differs from its folder's name "${folderName}"` };
  return { frontmatter: fm as Frontmatter };
}
