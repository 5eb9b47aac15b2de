import { testSigner } from '@social/testkit';
import { createGrpcClient } from './client';
import { healthDefinition } from './health';

describe('createGrpcClient', () => {
  it('refuses methods that are not unary methods of the service, before any network call', async () => {
    const client = createGrpcClient(healthDefinition(), '127.0.0.1:1', {
      audience: 'x',
      signer: testSigner('posts'),
    });

    await expect(client.call('Watch', { service: '' }, { workspaceId: 'ws' })).rejects.toThrow(
      'grpc.health.v1.Health has no unary method Watch',
    );
    await expect(client.call('toString', {}, { workspaceId: 'ws' })).rejects.toThrow('has no unary method toString');
    client.close();
  });
});
