package io.github.sluice.http;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records events as short strings, e.g. {@code denied per-ip 192.0.2.1}. Thread-safe. */
final class RecordingListener implements EnforcementListener {

    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void allowed(Policy policy, String key, MutableDecision decision) {
        events.add("allowed " + policy.name() + " " + key);
    }

    @Override
    public void shaped(Policy policy, String key, MutableDecision decision) {
        events.add("shaped " + policy.name() + " " + key + " " + decision.delayNanos());
    }

    @Override
    public void denied(Policy policy, String key, MutableDecision decision) {
        events.add((policy.dryRun() ? "would-deny " : "denied ") + policy.name() + " " + key);
    }

    @Override
    public void released(Policy policy, String key, long permits) {
        events.add("released " + policy.name() + " " + key + " " + permits);
    }

    @Override
    public void evicted(String policy, String key, boolean lossless) {
        events.add("evicted " + policy + " " + key + " " + lossless);
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        events.add("degraded " + store);
    }

    @Override
    public void storeRecovered(String store) {
        events.add("recovered " + store);
    }
}
