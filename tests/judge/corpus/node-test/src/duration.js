"use strict";

const UNIT_SECONDS = { h: 3600, m: 60, s: 1 };
// "1h30m", "45m", "90s", "2h5s": hours, minutes and seconds, each optional, in that order.
const DURATION = /^(\d+h)?(\d+m)?$/;

/** Seconds in a duration written like "1h30m"; a RangeError for anything else. */
function parseDuration(text) {
  const compact = String(text).replace(/\s+/g, "");
  if (compact === "" || !DURATION.test(compact)) {
    throw new RangeError(`not a duration: ${JSON.stringify(text)}`);
  }
  let seconds = 0;
  for (const [, amount, unit] of compact.matchAll(/(\d+)([hms])/g)) {
    seconds += Number(amount) * UNIT_SECONDS[unit];
  }
  return seconds;
}

/** "1:01:01" for 3661 seconds. */
function formatDuration(seconds) {
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new TypeError(`expected a whole number of seconds, got ${seconds}`);
  }
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours}:${minutes}:${seconds % 60}`;
}

/** The duration in hours, as a fraction. */
function toHours(seconds) {
  return Math.floor(seconds / 36) / 100;
}

module.exports = { parseDuration, formatDuration, toHours };
