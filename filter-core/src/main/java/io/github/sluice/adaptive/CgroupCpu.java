package io.github.sluice.adaptive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The CPU quota of the container the process runs in, in CPUs (fractions included), read from
 * the Linux cgroup files as Kratos's {@code WithCPUQuota} and the JVM's container support do:
 * <ul>
 *   <li>cgroup v2 ({@code cgroup.controllers} at the root): {@code cpu.max}, "{@code $MAX
 *       $PERIOD}" in microseconds, {@code max} for no limit; the process's own cgroup (the
 *       {@code 0::/path} line of {@code /proc/self/cgroup}) and each of its ancestors up to the
 *       root, the smallest limit winning, as the kernel enforces it;
 *   <li>cgroup v1: {@code cpu.cfs_quota_us} (-1 for no limit) over {@code cpu.cfs_period_us},
 *       under the {@code cpu} controller's mount ({@code cpu,cpuacct}, {@code cpu} or
 *       {@code cpuacct,cpu}), in the process's cgroup if it is visible, else at the mount's root
 *       (a container's own namespace).
 * </ul>
 * No cgroup files at all (not Linux, or no cpu controller) means no quota, and is not a problem.
 * A file that exists but cannot be read or parsed is: the quota is then unknown, and
 * {@link #problem()} says why, for the caller to log.
 *
 * <p>Immutable. Read once, when the gauge is made.
 */
final class CgroupCpu {

    /** Where Linux mounts the cgroup file systems. */
    static final Path DEFAULT_ROOT = Path.of("/sys/fs/cgroup");
    /** The file that names the process's cgroups. */
    static final Path PROC_SELF_CGROUP = Path.of("/proc/self/cgroup");

    private final double cpus;
    private final String source;
    private final String problem;

    private CgroupCpu(double cpus, String source, String problem) {
        this.cpus = cpus;
        this.source = source;
        this.problem = problem;
    }

    /** @return the quota in CPUs, {@code > 0}; or -1 if there is none or it is unknown */
    double cpus() {
        return cpus;
    }

    /** @return the file the quota was read from, or {@code null} */
    String source() {
        return source;
    }

    /** @return why the quota is unknown (a file that cannot be read or parsed), or {@code null} */
    String problem() {
        return problem;
    }

    /**
     * Reads the quota.
     *
     * @param root the cgroup mount root, normally {@link #DEFAULT_ROOT}
     * @param procSelfCgroup the process's cgroup list, normally {@link #PROC_SELF_CGROUP}
     * @return the quota, none, or the problem met; never throws
     */
    static CgroupCpu read(Path root, Path procSelfCgroup) {
        try {
            List<String> lines = Files.isReadable(procSelfCgroup)
                    ? Files.readAllLines(procSelfCgroup, StandardCharsets.UTF_8) : List.of();
            if (Files.exists(root.resolve("cgroup.controllers"))) {
                return v2(root, ownPath(lines, true));
            }
            return v1(root, ownPath(lines, false));
        } catch (IOException | RuntimeException e) {
            return new CgroupCpu(-1, null, "cannot read the cgroup files under " + root + ": " + e);
        }
    }

    private static CgroupCpu none() {
        return new CgroupCpu(-1, null, null);
    }

    /** The process's cgroup path: the {@code 0::} line (v2), or the cpu controller's line (v1). */
    private static String ownPath(List<String> lines, boolean v2) {
        for (String line : lines) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            if (v2 ? parts[0].equals("0") && parts[1].isEmpty() : List.of(parts[1].split(",")).contains("cpu")) {
                return parts[2];
            }
        }
        return "/";
    }

    private static CgroupCpu v2(Path root, String own) throws IOException {
        Path dir = inside(root, own);
        double best = -1;
        String from = null;
        for (Path d = dir; d != null && d.startsWith(root); d = d.getParent()) {
            Path file = d.resolve("cpu.max");
            if (!Files.exists(file)) {
                continue;
            }
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            String[] f = text.split("\\s+");
            if (f.length != 2 || !isCount(f[1]) || !(f[0].equals("max") || isCount(f[0]))) {
                return garbage(file, text, "'$MAX $PERIOD', e.g. '50000 100000' or 'max 100000'");
            }
            long period = Long.parseLong(f[1]);
            if (period <= 0) {
                return garbage(file, text, "a period above 0");
            }
            if (!f[0].equals("max")) {
                double cpus = Long.parseLong(f[0]) / (double) period;
                if (cpus > 0 && (best < 0 || cpus < best)) {
                    best = cpus;
                    from = file.toString();
                }
            }
            if (d.equals(root)) {
                break;
            }
        }
        return best > 0 ? new CgroupCpu(best, from, null) : none();
    }

    private static CgroupCpu v1(Path root, String own) throws IOException {
        for (String mount : List.of("cpu,cpuacct", "cpu", "cpuacct,cpu")) {
            Path base = root.resolve(mount);
            if (!Files.isDirectory(base)) {
                continue;
            }
            Path dir = inside(base, own);
            if (!Files.exists(dir.resolve("cpu.cfs_quota_us"))) {
                dir = base; // the process's path is the host's, not visible in this namespace
            }
            Path quotaFile = dir.resolve("cpu.cfs_quota_us");
            Path periodFile = dir.resolve("cpu.cfs_period_us");
            if (!Files.exists(quotaFile)) {
                return none();
            }
            String quotaText = Files.readString(quotaFile, StandardCharsets.UTF_8).trim();
            if (!quotaText.equals("-1") && !isCount(quotaText)) {
                return garbage(quotaFile, quotaText, "-1 or a count of microseconds");
            }
            long quota = Long.parseLong(quotaText);
            if (quota < 0) {
                return none();
            }
            String periodText = Files.exists(periodFile)
                    ? Files.readString(periodFile, StandardCharsets.UTF_8).trim() : "(missing)";
            if (!isCount(periodText) || Long.parseLong(periodText) <= 0) {
                return garbage(periodFile, periodText, "a period above 0, in microseconds");
            }
            return quota == 0 ? none() : new CgroupCpu(quota / (double) Long.parseLong(periodText),
                    quotaFile.toString(), null);
        }
        return none();
    }

    /** {@code base} joined with the cgroup path, which is absolute in {@code /proc/self/cgroup}. */
    private static Path inside(Path base, String cgroupPath) {
        String relative = cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath;
        Path dir = relative.isEmpty() ? base : base.resolve(relative).normalize();
        return dir.startsWith(base) && Files.isDirectory(dir) ? dir : base;
    }

    private static boolean isCount(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static CgroupCpu garbage(Path file, String text, String expected) {
        String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return new CgroupCpu(-1, null, file + " holds '" + shown + "', expected " + expected);
    }

    @Override
    public String toString() {
        return cpus > 0 ? cpus + " CPUs (" + source + ")" : problem != null ? "unknown: " + problem : "no quota";
    }
}
