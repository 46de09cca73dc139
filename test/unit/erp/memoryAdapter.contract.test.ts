import { describeErpAdapterContract } from '../../contract/erpAdapterContract.js';
import { memorySource } from '../../support/memorySource.js';

// The second implementation of the port passes the same contract as the file adapter.
describeErpAdapterContract('memory adapter (snapshot reads)', async () => memorySource());
describeErpAdapterContract('memory adapter (delta reads)', async () => memorySource({ reads: 'delta' }));
describeErpAdapterContract('memory adapter (checkpoint ignored)', async () =>
  memorySource({ ignoresCheckpoint: true }),
);
