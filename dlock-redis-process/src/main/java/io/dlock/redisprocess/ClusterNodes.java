package io.dlock.redisprocess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What one cluster node says about the cluster: its {@code CLUSTER NODES} reply, parsed. */
final class ClusterNodes {
    /** Timeout of each administration command sent to a node. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    private ClusterNodes() {
    }

    /** {@code CLUSTER NODES} of one node, by node id. */
    static Map<String, Node> view(RedisServer node) {
        String text = (String) node.command(CALL_TIMEOUT, "CLUSTER", "NODES");
        Map<String, Node> view = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                Node n = Node.parse(line.strip());
                view.put(n.id(), n);
            }
        }
        return view;
    }

    /** One line of {@code CLUSTER NODES}: id, port, flags, master id ("-" for a master), slot ranges. */
    record Node(String id, int port, Set<String> flags, String masterId, List<int[]> slots) {
        static Node parse(String line) {
            String[] parts = line.split(" ");
            String address = parts[1];
            int colon = address.lastIndexOf(':');
            int at = address.indexOf('@');
            int port = Integer.parseInt(address.substring(colon + 1, at > colon ? at : address.length()));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < parts.length; i++) {
                String range = parts[i];
                if (range.startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                int dash = range.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
                slots.add(new int[] {first, last});
            }
            return new Node(parts[0], port, Set.of(parts[2].split(",")), parts[3], slots);
        }

        /** @return whether the node is flagged as failing ({@code fail}, or {@code fail?} when only suspected) */
        boolean failing() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        boolean owns(int slot) {
            return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
        }

        int slotCount() {
            return slots.stream().mapToInt(r -> r[1] - r[0] + 1).sum();
        }
    }
}
