import { runMain } from '@social/runtime';
import { CollectorService } from './collector-service';
import { loadInsightsConfig } from './config';

runMain('insights-collector', () => CollectorService.create(loadInsightsConfig()));
