package io.github.sluice.policy;

import io.github.sluice.internal.Suggest;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the {@code key=} option: {@code ip}, {@code header:<name>}, {@code principal},
 * {@code attribute:<name>}, {@code global}, {@code constant:<value>}, {@code bean:<name>} (a resolver
 * registered under that name, bound when the enforcer is built), or a fallback chain of them
 * joined by {@code |}.
 */
final class KeySpecs {

    private static final List<String> KINDS = List.of("ip", "header", "principal", "attribute", "global", "constant", "bean");

    private KeySpecs() {
    }

    /**
     * @throws IllegalArgumentException with the rule, if the text is not a key
     */
    static KeyResolver parse(String text) {
        String[] parts = text.split("\\|", -1);
        if (parts.length == 1) {
            return single(text);
        }
        List<KeyResolver> chain = new ArrayList<>();
        for (String p : parts) {
            chain.add(single(p));
        }
        return KeyResolvers.firstOf(chain.toArray(new KeyResolver[0]));
    }

    private static KeyResolver single(String text) {
        int colon = text.indexOf(':');
        String kind = colon < 0 ? text : text.substring(0, colon);
        String arg = colon < 0 ? null : text.substring(colon + 1);
        switch (kind) {
            case "ip" -> {
                noArg(kind, arg);
                return KeyResolvers.ip();
            }
            case "principal" -> {
                noArg(kind, arg);
                return KeyResolvers.principal();
            }
            case "global" -> {
                noArg(kind, arg);
                return KeyResolvers.global();
            }
            case "header" -> {
                return KeyResolvers.header(needArg(kind, arg));
            }
            case "attribute" -> {
                return KeyResolvers.attribute(needArg(kind, arg));
            }
            case "constant" -> {
                return KeyResolvers.constant(needArg(kind, arg));
            }
            case "bean" -> {
                return KeyResolvers.bean(needArg(kind, arg));
            }
            default -> {
                String near = Suggest.nearest(kind, KINDS);
                throw new IllegalArgumentException("key must be ip, header:<name>, principal, attribute:<name>,"
                        + " global, constant:<value>, bean:<name> or a chain of them joined by '|' but was '" + text + "'"
                        + (near == null || kind.isEmpty() ? "" : "; did you mean '" + near + (arg == null ? "" : ":" + arg) + "'?"));
            }
        }
    }

    private static void noArg(String kind, String arg) {
        if (arg != null) {
            throw new IllegalArgumentException("key " + kind + " takes no ':' argument but was '" + kind + ':' + arg + "'");
        }
    }

    private static String needArg(String kind, String arg) {
        if (arg == null || arg.isEmpty()) {
            throw new IllegalArgumentException("key " + kind + " needs a name, e.g. " + kind
                    + (kind.equals("header") ? ":X-Api-Key" : kind.equals("bean") ? ":tenantResolver" : ":tenant"));
        }
        return arg;
    }
}
