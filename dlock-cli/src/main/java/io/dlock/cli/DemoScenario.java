package io.dlock.cli;

/**
 * One scenario of {@code dlock demo}: a short story with explicit checks, under a title, about keys of its own. Every
 * key a scenario makes starts with its name (under the demo's prefix), so no two scenarios share one.
 */
abstract class DemoScenario {
    private final String title;
    private final String name;

    /**
     * @param title the scenario's title, without its number
     * @param name  the start of every key the scenario makes
     */
    DemoScenario(String title, String name) {
        this.title = title;
        this.name = name;
    }

    /** The scenario's title, without its number. */
    final String title() {
        return title;
    }

    /** {@link #tell Tells} the story with the demo's key for the scenario's name. */
    final boolean run(ScenarioContext context) throws Exception {
        return tell(context, context.key(name));
    }

    /**
     * Tells the story and makes the checks through {@code context}; what it creates there is cleaned up afterwards.
     *
     * @param key the demo's key for the scenario's name: its lock's (or other object's) name, and the start of any
     *            other key it makes
     * @return false when it gave up before its end (it fails then, whatever its checks said)
     */
    abstract boolean tell(ScenarioContext context, String key) throws Exception;
}
