import { runMain } from '@social/runtime';
import { loadPublisherConfig } from './config';
import { PublisherService } from './publisher-service';

runMain('publisher', () => PublisherService.create(loadPublisherConfig()));
