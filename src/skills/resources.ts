/**
 * The skill files as ordinary MCP resources (SEP-2640 §Resource Mapping): each SKILL.md is
 * listed in `resources/list` with its front matter's name and description and `text/markdown`;
 * every served file, SKILL.md included, is readable through the `skill://{+path}` template.
 * A read goes through the symlink-proof reader and must still match the digest and size the
 * entry published: a file changed since start-up is refused, not served under a stale digest.
 */

import { createHash } from 'node:crypto';
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import type { Definition } from '../registry/define.ts';
import { defineResource, defineResourceTemplate } from '../registry/define.ts';
import type { SkillCatalog } from './catalog.ts';
import { contentsOf } from './mime.ts';

async function readSkillFile(catalog: SkillCatalog, uri: string) {
  const file = catalog.file(uri);
  const bytes = file ? await catalog.read(uri).catch(() => undefined) : undefined;
  if (!file || !bytes) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { data: { uri } });
  }
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (bytes.length !== file.size || digest !== file.digest) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `${uri} changed since the server read the skills folder: restart the server to publish the new version`,
    );
  }
  return contentsOf(bytes, file.mimeType);
}

/** The resources and the template that serve a catalog's files. */
export function skillResources(catalog: SkillCatalog): Definition[] {
  const manifests = catalog.skills.map((skill) =>
    defineResource(
      {
        uri: skill.uri,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        mimeType: 'text/markdown',
        size: catalog.file(skill.uri)?.size,
      },
      (uri) => readSkillFile(catalog, uri),
    ),
  );
  const files = defineResourceTemplate(
    {
      uriTemplate: 'skill://{+path}',
      name: 'skill-file',
      description: 'A file of one of the agent skills this server serves (see skills/list)',
    },
    (uri) => readSkillFile(catalog, uri),
  );
  return [...manifests, files];
}
