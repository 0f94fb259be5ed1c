/**
 * The fixture's resources: static text (listed first: the caching scenario reads the first
 * listed URI), a binary one, one clients subscribe to, and a URI template.
 */
import { type Definition, defineResource, defineResourceTemplate } from '@mcp-toolkit/server';
import { PNG_BASE64 } from './media.ts';

export const WATCHED_URI = 'test://watched-resource';

export function resources(): Definition[] {
  return [
    defineResource(
      {
        uri: 'test://static-text',
        name: 'static-text',
        description: 'A static text resource',
        mimeType: 'text/plain',
      },
      async () => 'This is the content of the static text resource.',
    ),
    defineResource(
      {
        uri: 'test://static-binary',
        name: 'static-binary',
        description: 'A static binary resource (a PNG image)',
        mimeType: 'image/png',
      },
      async () => ({ blob: PNG_BASE64 }),
    ),
    defineResource(
      {
        uri: WATCHED_URI,
        name: 'watched-resource',
        description: 'A resource clients can subscribe to',
        mimeType: 'text/plain',
      },
      async () => 'This is the content of the watched resource.',
    ),
    defineResourceTemplate(
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        description: 'A resource template with one id variable',
        mimeType: 'application/json',
      },
      async (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    ),
  ];
}
