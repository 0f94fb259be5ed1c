import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { protectedResourceMetadata, resourceUrls } from '../../src/auth/resource-metadata.ts';
import { discoveryUrls, resourceMetadataPath, resourceMetadataUrl } from '../../src/base/oauth-urls.ts';

describe('protected resource metadata (RFC 9728)', () => {
  it('builds the document', () => {
    assert.deepEqual(
      protectedResourceMetadata({
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://as.example.com'],
        scopesSupported: ['mcp:read', 'mcp:write', 'mcp:read'],
        resourceName: 'Example',
      }),
      {
        resource: 'https://mcp.example.com/mcp',
        authorization_servers: ['https://as.example.com'],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:read', 'mcp:write'],
        resource_name: 'Example',
      },
    );
    assert.equal(
      'scopes_supported' in
        protectedResourceMetadata({ resource: 'https://x/mcp', authorizationServers: [] }),
      false,
    );
  });

  it('inserts the well-known suffix before the path (§3.1)', () => {
    assert.equal(resourceMetadataPath('/mcp'), '/.well-known/oauth-protected-resource/mcp');
    assert.equal(resourceMetadataPath('/'), '/.well-known/oauth-protected-resource');
    assert.equal(
      resourceMetadataUrl('https://mcp.example.com/api/mcp'),
      'https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp',
    );
    assert.equal(
      resourceMetadataUrl('https://mcp.example.com/'),
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
  });

  it('derives resource, metadata URL and audience from the public URL and MCP path', () => {
    assert.deepEqual(resourceUrls({ publicUrl: 'https://mcp.example.com/', mcpPath: '/mcp' }), {
      resource: 'https://mcp.example.com/mcp',
      resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      audience: 'https://mcp.example.com/mcp',
    });
    const prefixed = resourceUrls({
      publicUrl: 'https://x.example.com/tools',
      mcpPath: '/mcp',
      audience: 'api://mcp',
    });
    assert.equal(prefixed.resource, 'https://x.example.com/tools/mcp');
    assert.equal(
      prefixed.resourceMetadataUrl,
      'https://x.example.com/.well-known/oauth-protected-resource/tools/mcp',
    );
    assert.equal(prefixed.audience, 'api://mcp');
  });

  it('tries RFC 8414 then OpenID discovery URLs for an issuer with a path', () => {
    assert.deepEqual(discoveryUrls('https://as.example.com/tenant/'), [
      'https://as.example.com/.well-known/oauth-authorization-server/tenant',
      'https://as.example.com/tenant/.well-known/openid-configuration',
    ]);
  });
});
