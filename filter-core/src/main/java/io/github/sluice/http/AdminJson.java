package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyFormat;
import java.util.List;
import java.util.Objects;

/**
 * The JSON documents of an operator's endpoint over an {@link Enforcer} (the servlet module's
 * {@code SluiceAdminServlet}, a Spring Boot actuator): the policies with their counters, a key's
 * state per policy, the result of a reset, and errors as RFC 9457 problem documents. Keeping them
 * here keeps every endpoint's output the same and the adapters thin.
 *
 * <p>Numbers are JSON integers; durations are whole seconds, in fields whose name ends in
 * {@code -seconds}. Keys are written as given, JSON-escaped. Stateless and thread-safe.
 */
public final class AdminJson {

    private AdminJson() {
    }

    /**
     * The policies in force (after a change at run time, the new versions), each with its line in the policy language and its counters:
     * <pre>{@code
     * {"policies":[{"name":"per-ip","policy":"per-ip = token-bucket 100/1m key=ip","algorithm":"token-bucket",
     *   "limit":100,"dry-run":false,"allowed":12,"shaped":0,"denied":3,"released":0,"in-flight":0,"keys":4}]}
     * }</pre>
     *
     * @param enforcer the enforcer
     * @return the document
     * @throws NullPointerException if {@code enforcer} is null
     */
    public static String policies(Enforcer enforcer) {
        StringBuilder b = new StringBuilder(256).append("{\"policies\":[");
        boolean first = true;
        for (Policy p : enforcer.policies()) {
            // The policies in force, each with the counters of its name (kept across changes).
            PolicyMetrics m = enforcer.metrics().policy(p.name());
            b.append(first ? "" : ",").append("{\"name\":");
            first = false;
            Json.string(b, p.name());
            b.append(",\"policy\":");
            Json.string(b, PolicyFormat.format(p));
            b.append(",\"algorithm\":");
            Json.string(b, p.algorithm().kind());
            b.append(",\"limit\":").append(p.algorithm().limit())
                    .append(",\"dry-run\":").append(p.dryRun())
                    .append(",\"allowed\":").append(m.allowed())
                    .append(",\"shaped\":").append(m.shaped())
                    .append(",\"denied\":").append(m.denied())
                    .append(",\"released\":").append(m.released())
                    .append(",\"in-flight\":").append(m.inFlight())
                    .append(",\"keys\":").append(m.keys()).append('}');
        }
        return b.append("]}").toString();
    }

    /**
     * A key's state per policy:
     * <pre>{@code
     * {"key":"192.0.2.1","states":[{"policy":"per-ip","algorithm":"token-bucket","limit":100,"remaining":97,
     *   "reset-seconds":2},{"policy":"inflight","algorithm":"concurrency","limit":50,"remaining":49,
     *   "reset-seconds":0,"in-flight":1}]}
     * }</pre>
     *
     * @param key the key asked for
     * @param states its states, from {@link Enforcer#inspect(String)}
     * @return the document
     * @throws NullPointerException if an argument is null
     */
    public static String key(String key, List<KeyState> states) {
        StringBuilder b = new StringBuilder(128).append("{\"key\":");
        Json.string(b, Objects.requireNonNull(key, "key"));
        b.append(",\"states\":[");
        boolean first = true;
        for (KeyState s : states) {
            b.append(first ? "" : ",").append("{\"policy\":");
            first = false;
            Json.string(b, s.policy());
            b.append(",\"algorithm\":");
            Json.string(b, s.algorithm());
            b.append(",\"limit\":").append(s.limit()).append(",\"remaining\":").append(s.remaining())
                    .append(",\"reset-seconds\":").append(s.resetSeconds());
            if (s.concurrency()) {
                b.append(",\"in-flight\":").append(s.inFlight());
            }
            b.append('}');
        }
        return b.append("]}").toString();
    }

    /**
     * The result of a reset: {@code {"key":"192.0.2.1","reset":["per-ip"]}}, the policies whose
     * state for the key was forgotten.
     *
     * @param key the key
     * @param policies the policies reset
     * @return the document
     * @throws NullPointerException if an argument is null
     */
    public static String reset(String key, List<String> policies) {
        StringBuilder b = new StringBuilder(64).append("{\"key\":");
        Json.string(b, Objects.requireNonNull(key, "key"));
        b.append(",\"reset\":[");
        for (int i = 0; i < policies.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            Json.string(b, policies.get(i));
        }
        return b.append("]}").toString();
    }

    /**
     * The heaviest clients of a policy over a period ({@link TopClients}), heaviest first:
     * <pre>{@code
     * {"policy":"per-ip","by":"denied","period":"5m","size":20,"total":1250,"bound":2,
     *   "top":[{"key":"192.0.2.7","count":1200,"error":0},{"key":"198.51.100.3","count":48,"error":2}]}
     * }</pre>
     * {@code total} is the requests counted over the period; each client made between
     * {@code count - error} and {@code count} of them; a client not listed made at most
     * {@code bound}.
     *
     * @param top the list
     * @return the document
     * @throws NullPointerException if {@code top} is null
     */
    public static String top(TopClients.Top top) {
        StringBuilder b = new StringBuilder(64 + 64 * top.entries().size()).append("{\"policy\":");
        Json.string(b, top.policy());
        b.append(",\"by\":\"").append(top.by().label()).append("\",\"period\":\"").append(top.minutes())
                .append("m\",\"size\":").append(top.size()).append(",\"total\":").append(top.total())
                .append(",\"bound\":").append(top.bound()).append(",\"top\":[");
        boolean first = true;
        for (TopClients.Entry e : top.entries()) {
            b.append(first ? "" : ",").append("{\"key\":");
            first = false;
            Json.string(b, e.key());
            b.append(",\"count\":").append(e.count()).append(",\"error\":").append(e.error()).append('}');
        }
        return b.append("]}").toString();
    }

    /**
     * An error as an RFC 9457 problem document ({@code application/problem+json}).
     *
     * @param status the HTTP status
     * @param title the status's reason, e.g. {@code Not Found}
     * @param detail what went wrong, for a person
     * @return the document
     * @throws NullPointerException if an argument is null
     */
    public static String problem(int status, String title, String detail) {
        StringBuilder b = new StringBuilder(96).append("{\"type\":\"about:blank\",\"title\":");
        Json.string(b, title);
        b.append(",\"status\":").append(status).append(",\"detail\":");
        Json.string(b, detail);
        return b.append('}').toString();
    }
}
