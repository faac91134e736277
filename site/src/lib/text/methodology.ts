import type { Warning } from '@redis-benchdb/result';

/**
 * What each warning code of result.v1 means, for the methodology page. A Record over the schema's own
 * enum: a new code in schemas/result.v1.schema.json (pnpm gen:types) fails the build here until it is
 * explained. Which of them keep a cell from a verdict is verdict.ts's NO_VERDICT_WARNINGS, not this list.
 */
export const WARNING_MEANINGS: Record<Warning['code'], { meaning: string; scope: 'run' | 'cell' }> = {
  VM: {
    scope: 'run',
    meaning:
      'The client ran in a virtual machine: Redis is slower and its latency less stable under a hypervisor than on the same hardware without one. Compare with results from similar VMs.',
  },
  CONTAINER: {
    scope: 'run',
    meaning:
      'The client ran in a container: CPU quotas, cgroup limits and the container network can throttle or delay it.',
  },
  THP_ALWAYS: {
    scope: 'run',
    meaning:
      "Transparent huge pages were 'always': Redis suffers large latency spikes after fork(); the Redis documentation asks for 'never'.",
  },
  SWAP_IN_USE: {
    scope: 'run',
    meaning:
      'Swap was in use: a page read back from swap stalls the process. A benchmark machine must not swap.',
  },
  GOVERNOR_NOT_PERFORMANCE: {
    scope: 'run',
    meaning:
      "The CPU frequency governor was not 'performance': the clock follows the load, so runs repeat less well.",
  },
  PERSISTENCE_ON: {
    scope: 'run',
    meaning:
      'RDB snapshots or AOF were on: fork() and disk writes add latency and compete for CPU and I/O. Not comparable with a server that does not persist.',
  },
  SAME_HOST: {
    scope: 'run',
    meaning:
      'Client and server ran on one host: they share CPUs and caches, and no network latency is included.',
  },
  CLIENT_BOUND: {
    scope: 'cell',
    meaning:
      'The client, not the server, was the limit (its event loop saturated): the figure is a floor for the server, not its capacity. No verdict.',
  },
  UNSTABLE: {
    scope: 'cell',
    meaning:
      "The cell's trials disagreed by more than 10% (coefficient of variation above 0.10): its median is not a reliable figure. No verdict.",
  },
  MONITOR_CLIENTS: {
    scope: 'run',
    meaning: 'A client ran MONITOR on the server, which copies every command to it: results are altered.',
  },
  DEBUG_LOGLEVEL: {
    scope: 'run',
    meaning: "The server logged at 'debug' or 'verbose' level: log lines cost time on the main thread.",
  },
  NOT_PINNED: {
    scope: 'run',
    meaning:
      '--server-cpus or --client-cpus was asked for but could not be applied: the run went on unpinned.',
  },
  ERRORS: {
    scope: 'cell',
    meaning:
      'Most replies were errors: the figure is how fast the server refused the command. No ratio, no verdict, and left out of headlines.',
  },
  STALL: {
    scope: 'cell',
    meaning:
      'The server sent no reply for a second or more while requests were outstanding (a fork, a blocking command, a stopped process): the wait is in the latency figures.',
  },
  BUSY_HOST: {
    scope: 'cell',
    meaning:
      "While the cell was measured, processes other than the client and the local server used more than 5% of the host's CPU time, or, on a host whose CPU accounting did not add up, other work could not be measured at all (see “How other work on the host is counted”): the cell shared its CPUs with other work, or is not known not to have. No verdict, and left out of headlines.",
  },
  CPU_STEAL: {
    scope: 'cell',
    meaning:
      "While the cell was measured, the hypervisor took more than 5% of the CPUs' time (steal): the cell measured the host's neighbours as well. No verdict, and left out of headlines.",
  },
  DRIFT: {
    scope: 'run',
    meaning:
      "The run's first cell, measured again at the end, disagreed with itself beyond both intervals: the machine or the server changed during the run. No verdict on any of its cells, and left out of headlines.",
  },
  SLO_UNBRACKETED: {
    scope: 'cell',
    meaning:
      'A search for the highest rate at a latency objective (run --slo) found no answer: the client was the limit, the objective failed even at the lowest rate tried, the server was disturbed (stalls, errors, other clients), or the time budget ran out before a rate failed. The cell records every step and the reason; its throughput is not an answer.',
  },
  WRONG_REPLIES: {
    scope: 'cell',
    meaning:
      'The server did not answer the command as the command answers: replies of another type (an integer to GET), or INFO commandstats counting more than 1% fewer calls than the replies the client received. Such figures measure a proxy, a fake or a server that replies without running the command. The runner exits non-zero and the database refuses the result, so no page shows one.',
  },
  IO_THREADS_OVER_CPUS: {
    scope: 'run',
    meaning:
      "The server had more I/O threads (its io-threads, main thread included) than the CPUs its process could run on: the threads spin waiting for each other's time slices. On one CPU, io-threads 2 measured a median 18 times slower than io-threads 1 for Redis and 53 times for Valkey 8.0.1 (data/README.md). The figures are real for that setup, and say nothing of io-threads on a machine that has the cores for them. Results from runners older than this check get it from their recorded io-threads and CPU affinity, marked as derived.",
  },
};

/**
 * How BUSY_HOST's figure (otherCpuFraction) is counted, for its own block on the methodology page
 * (issue 34). docs/RESULT-FORMAT.md has the same method with the field names.
 */
export const OTHER_WORK_METHOD: { title: string; points: string[] } = {
  title: 'How other work on the host is counted',
  points: [
    "Over each trial's measured phase (after warm-up, to its last reply), the runner reads /proc at both ends: every process's own CPU time (/proc/<pid>/stat) and the host's busy time (/proc/stat).",
    "Other work is the larger of two counts that can each miss work but never invent it: the CPU time of every process but the client and the local server, one by one; and the host's busy time (user, nice, system) less the client's and the server's. A busy loop on the client's or server's CPU counts in full in the first, whatever the kernel's accounting calls its time; the second also sees processes that start and end within the phase.",
    "Runners before issue 34 used the second alone, and it missed a busy loop pinned to the server's CPU in 9 runs of 10 on an Intel 2-vCPU VM. With tick-based accounting the kernel charges the client and server for the softirq time of their own loopback packets, while /proc/stat files that time as softirq: on an AMD EPYC 2-vCPU VM at 45,000-53,000 ops/s, softirq was 17-18% of the host's time, and host busy less the client and server read 0.00-0.04 while other processes' own time was 0.16-0.22.",
    "If the processes the runner sees used more CPU than /proc/stat counts busy (irq and softirq included, with 10% of the phase to spare for tick sampling), the host's accounting cannot be reconciled: the cell's interference note says so, its figure is the other processes' own time when that alone is over the threshold and unknown otherwise, and an unknown figure counts as BUSY_HOST: no verdict rests on other work that could not be measured.",
    "Blind spots: processes in another container (not visible here) and processes too short-lived for both reads are seen only through the host's busy time, which reads low by the benchmark's own softirq on tick-accounting kernels; interrupt work done in no process is in neither count; another guest of the hypervisor is CPU_STEAL, not BUSY_HOST.",
  ],
};
