package io.github.sluice.servlet;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.ReleaseLedger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The base of every contract that runs against both containers: it starts servers on random
 * ports and stops them after each test. Subclasses are declared {@code @Nested} in
 * {@link JettyTest} and {@link TomcatTest}.
 *
 * <p>Every enforcer made by {@link #enforcer(Enforcer.Builder)} keeps its state behind a
 * {@link ReleaseLedger}, and every test ends by checking it: each admission of a concurrency
 * policy was given back exactly once, counted at the store. So every contract is a release test,
 * and an extra release fails it as surely as a missing one.
 */
abstract class ContainerContract {

    /** Frozen unless a test advances it: rate limits then decide the same way on a loaded machine. */
    final FakeClock clock = new FakeClock();
    final ScenarioServlet app = new ScenarioServlet();
    private final Container container;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<ReleaseLedger> ledgers = new ArrayList<>();

    ContainerContract(Container container) {
        this.container = container;
    }

    Container container() {
        return container;
    }

    RunningServer start(Deployment deployment) throws Exception {
        RunningServer server = container.start(deployment);
        closeables.add(server);
        return server;
    }

    RunningServer startWebapp(java.nio.file.Path webapp) throws Exception {
        RunningServer server = container.startWebapp(webapp);
        closeables.add(server);
        return server;
    }

    /**
     * An enforcer of the given policies on an in-memory store driven by {@link #clock}, behind a
     * ledger of its own that the end of the test checks.
     */
    Enforcer enforcer(Enforcer.Builder config) {
        return enforcer(config, true);
    }

    /**
     * @param ledgered {@code false} for adaptive policies, which an enforcer keeps in a registry of
     *     its own (on the system clock) when its store is not the in-memory registry
     */
    Enforcer enforcer(Enforcer.Builder config, boolean ledgered) {
        if (!ledgered) {
            Enforcer enforcer = config.clock(clock).listener(EnforcementListener.NONE).build();
            closeables.add(enforcer);
            return enforcer;
        }
        ReleaseLedger ledger = ReleaseLedger.over(ShardedRegistry.builder().clock(clock).build());
        Enforcer enforcer = config.store(ledger).listener(EnforcementListener.NONE).build();
        ledgers.add(ledger);
        closeables.add(ledger);
        closeables.add(enforcer);
        return enforcer;
    }

    /**
     * An enforcer behind {@code ledger} (which the end of the test checks, as for
     * {@link #enforcer(Enforcer.Builder)}), telling {@code listener} of its decisions.
     */
    Enforcer enforcer(Enforcer.Builder config, ReleaseLedger ledger, EnforcementListener listener) {
        Enforcer enforcer = config.store(ledger).listener(listener).build();
        ledgers.add(ledger);
        closeables.add(ledger);
        closeables.add(enforcer);
        return enforcer;
    }

    Enforcer enforcer(String policies) {
        return enforcer(Enforcer.builder().policies(policies));
    }

    /**
     * Opens the application's gate, checks that every permit taken was given back exactly once
     * (the server may release a little after the last response), then stops the servers.
     */
    @AfterEach
    void stopServers() throws Exception {
        app.gate.countDown(); // never leave a container thread parked in the application
        try {
            for (ReleaseLedger ledger : ledgers) {
                ledger.awaitBalanced(Duration.ofSeconds(10));
            }
        } finally {
            for (int i = closeables.size() - 1; i >= 0; i--) {
                closeables.get(i).close();
            }
        }
    }
}
