import { runMain } from '@social/runtime';
import { loadMediaConfig } from './config';
import { MediaWorker } from './media-worker';

runMain('media-worker', () => MediaWorker.create(loadMediaConfig()));
