import { runMain } from '@social/runtime';
import { loadCompetitorsConfig } from './config';
import { CompetitorsService } from './competitors-service';

runMain('competitors', () => CompetitorsService.create(loadCompetitorsConfig()));
