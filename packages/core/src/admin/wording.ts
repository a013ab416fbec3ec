/** A duration in words for the admin API's sentences: `3 s`, `5 min`, `2 h`, `1 day`, `30 days`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return hours === 24 ? '1 day' : `${hours} h`;
  const days = Math.round(hours / 24);
  return `${days} days`;
}

/** How long ago, in words: `just now` under a second, else `3 s ago`, `2 days ago`. */
export function ago(ms: number): string {
  return ms < 1000 ? 'just now' : `${duration(ms)} ago`;
}
