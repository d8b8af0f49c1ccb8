package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.RecordingResponse;

/** Builds enforcers on a frozen clock for tests. */
final class EnforcerFixture {

    final FakeClock clock = new FakeClock();
    final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(4).build();

    Enforcer.Builder builder(String... policyLines) {
        Enforcer.Builder b = Enforcer.builder().store(registry).listener(EnforcementListener.NONE);
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
