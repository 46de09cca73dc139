import { defineRunJob } from './runJob.js';

/** `feedback` on the runs queue: one feedback pipeline run, de-duplicated per pipeline. */
export const feedbackJob = defineRunJob('feedback', 'feedback');
