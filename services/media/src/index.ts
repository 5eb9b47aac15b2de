import { runMain } from '@social/runtime';
import { loadMediaConfig } from './config';
import { MediaService } from './media-service';

runMain('media', () => MediaService.create(loadMediaConfig()));
