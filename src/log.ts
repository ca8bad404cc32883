import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers["subscription-key"]', 'req.headers.authorization', 'req.query["subscription-key"]'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
