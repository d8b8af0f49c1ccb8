package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BBR's CPU reading under a container CPU quota, on fake cgroup files: a 0.5-CPU pod must read
 * its usage against half a CPU, not against the one processor the JVM rounds it up to.
 */
class CgroupCpuTest {

    private static final long MS = 1_000_000L;

    @TempDir
    Path root;

    private Path proc(String content) throws IOException {
        Path p = root.resolve("proc-self-cgroup");
        Files.writeString(p, content);
        return p;
    }

    private Path file(String relative, String content) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return p;
    }

    private void v2() throws IOException {
        file("cgroup.controllers", "cpuset cpu io memory pids\n");
    }

    @Test
    void v2_cpuMaxHalfACpu_isAQuotaOfHalfACpu() throws IOException {
        v2();
        file("cpu.max", "50000 100000\n");
        CgroupCpu quota = CgroupCpu.read(root, proc("0::/\n"));
        assertEquals(0.5, quota.cpus());
        assertNull(quota.problem());
    }

    @Test
    void v2_noLimitMax_isNoQuota() throws IOException {
        v2();
        file("cpu.max", "max 100000\n");
        CgroupCpu quota = CgroupCpu.read(root, proc("0::/\n"));
        assertEquals(-1, quota.cpus());
        assertNull(quota.problem(), "no limit is not a problem");
    }

    @Test
    void v2_nestedCgroups_theSmallestLimitOnThePathWins() throws IOException {
        v2();
        file("kubepods/cpu.max", "150000 100000\n");
        file("kubepods/pod1/cpu.max", "max 100000\n");
        file("kubepods/pod1/app/cpu.max", "250000 100000\n");
        file("other/cpu.max", "10000 100000\n");
        CgroupCpu quota = CgroupCpu.read(root, proc("0::/kubepods/pod1/app\n"));
        assertEquals(1.5, quota.cpus());
        assertTrue(quota.source().endsWith("kubepods/cpu.max"), quota.source());
    }

    @Test
    void v1_cfsQuotaOverPeriod_isTheQuota() throws IOException {
        file("cpu,cpuacct/cpu.cfs_quota_us", "25000\n");
        file("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
        CgroupCpu quota = CgroupCpu.read(root, proc("4:cpu,cpuacct:/docker/abc\n1:memory:/docker/abc\n"));
        assertEquals(0.25, quota.cpus(), "the host's path is not visible: the mount's root is the container's");
    }

    @Test
    void v1_quotaMinusOne_isNoQuota() throws IOException {
        file("cpu/cpu.cfs_quota_us", "-1\n");
        file("cpu/cpu.cfs_period_us", "100000\n");
        CgroupCpu quota = CgroupCpu.read(root, proc("3:cpu:/\n"));
        assertEquals(-1, quota.cpus());
        assertNull(quota.problem());
    }

    @Test
    void noCgroupFiles_isNoQuota_andNoProblem() throws IOException {
        CgroupCpu quota = CgroupCpu.read(root.resolve("absent"), root.resolve("absent-proc"));
        assertEquals(-1, quota.cpus());
        assertNull(quota.problem());
    }

    @Test
    void garbageOrUnreadableFiles_areAProblemNamingTheFile() throws IOException {
        v2();
        Path cpuMax = file("cpu.max", "fifty percent\n");
        CgroupCpu garbage = CgroupCpu.read(root, proc("0::/\n"));
        assertEquals(-1, garbage.cpus());
        assertEquals(cpuMax + " holds 'fifty percent', expected '$MAX $PERIOD', e.g. '50000 100000' or 'max 100000'",
                garbage.problem());

        Files.writeString(cpuMax, "50000 0\n");
        assertTrue(CgroupCpu.read(root, proc("0::/\n")).problem().contains("a period above 0"));

        Files.delete(cpuMax);
        Files.createDirectory(cpuMax); // exists, cannot be read as a file
        CgroupCpu unreadable = CgroupCpu.read(root, proc("0::/\n"));
        assertEquals(-1, unreadable.cpus());
        assertTrue(unreadable.problem().startsWith("cannot read the cgroup files under " + root), unreadable.problem());

        Path v1root = root.resolve("v1");
        Files.createDirectories(v1root.resolve("cpu"));
        Files.writeString(v1root.resolve("cpu/cpu.cfs_quota_us"), "50000\n");
        Files.writeString(v1root.resolve("cpu/cpu.cfs_period_us"), "zero\n");
        assertTrue(CgroupCpu.read(v1root, proc("3:cpu:/\n")).problem().contains("cpu.cfs_period_us holds 'zero'"));
    }

    @Test
    void capacity_fractionalQuota_isTheQuota_cappedAtTheProcessors_andAProblemFallsBackOnce() throws IOException {
        v2();
        file("cpu.max", "50000 100000\n");
        List<String> warnings = new ArrayList<>();
        assertEquals(0.5, ProcessCpu.capacity(CgroupCpu.read(root, proc("0::/\n")), 1, warnings::add));
        file("cpu.max", "800000 100000\n");
        assertEquals(4.0, ProcessCpu.capacity(CgroupCpu.read(root, proc("0::/\n")), 4, warnings::add),
                "a quota above the processors cannot be used");
        file("cpu.max", "max 100000\n");
        assertEquals(2.0, ProcessCpu.capacity(CgroupCpu.read(root, proc("0::/\n")), 2, warnings::add));
        assertEquals(List.of(), warnings);

        file("cpu.max", "???\n");
        assertEquals(2.0, ProcessCpu.capacity(CgroupCpu.read(root, proc("0::/\n")), 2, warnings::add));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).startsWith("CPU usage for bbr is read against the 2 processors available to the"
                + " JVM, not a container quota: "), warnings.get(0));
    }

    /**
     * The attack the quota closes: a 0.5-CPU pod using all of its half CPU. Divided by the one
     * processor the JVM reports, that read 50 % and BBR's 80 % threshold never shed; divided by
     * the quota it reads 100 %.
     */
    @Test
    void usage_halfACpuPodSaturated_readsFullNotHalf() throws IOException {
        v2();
        file("cpu.max", "50000 100000\n");
        AtomicLong cpu = new AtomicLong();
        AtomicLong wall = new AtomicLong(1_000 * MS);
        double capacity = ProcessCpu.capacity(CgroupCpu.read(root, proc("0::/\n")), 1, w -> { });
        ProcessCpu gauge = new ProcessCpu(cpu::get, wall::get, capacity);
        gauge.usage(0);
        cpu.addAndGet(250 * MS);
        wall.addAndGet(500 * MS);
        assertEquals(1.0, gauge.usage(ProcessCpu.INTERVAL_MILLIS * MS));

        ProcessCpu unaware = new ProcessCpu(cpu::get, wall::get, 1);
        unaware.usage(0);
        cpu.addAndGet(250 * MS);
        wall.addAndGet(500 * MS);
        assertEquals(0.5, unaware.usage(ProcessCpu.INTERVAL_MILLIS * MS), "what the rounded-up processor count reads");
    }
}
