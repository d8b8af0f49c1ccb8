package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.RecordingResponse;
import io.github.sluice.testing.ReleaseLedger;

/** Builds enforcers on a frozen clock for tests. */
final class EnforcerFixture {

    final FakeClock clock = new FakeClock();
    final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(4).build();
    /** In front of {@link #registry}: every admission and release of a concurrency policy, counted at the store. */
    final ReleaseLedger ledger = ReleaseLedger.over(registry);

    Enforcer.Builder builder(String... policyLines) {
        Enforcer.Builder b = Enforcer.builder().store(registry).listener(EnforcementListener.NONE);
        for (String line : policyLines) {
            b.policy(Policy.parse(line));
        }
        return b;
    }

    /**
     * Like {@link #builder}, on {@link #ledger}. Not for adaptive policies: an enforcer keeps
     * them in a registry of its own (system clock) when its store is not the in-memory registry.
     */
    Enforcer.Builder ledgered(String... policyLines) {
        Enforcer.Builder b = Enforcer.builder().store(ledger).listener(EnforcementListener.NONE);
        for (String line : policyLines) {
            b.policy(Policy.parse(line));
        }
        return b;
    }

    Enforcer enforcer(String... policyLines) {
        return builder(policyLines).build();
    }

    static RecordingResponse headers(Verdict v) {
        RecordingResponse r = new RecordingResponse();
        v.writeHeaders(r);
        return r;
    }
}
