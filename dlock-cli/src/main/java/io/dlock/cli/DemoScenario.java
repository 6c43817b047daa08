package io.dlock.cli;

/** One scenario of {@code dlock demo}: a short story with explicit checks. */
interface DemoScenario {
    /** The scenario's title, without its number. */
    String title();

    /**
     * Tells the story and makes the checks through {@code context}; what it creates there is cleaned up afterwards.
     *
     * @return false when it gave up before its end (it fails then, whatever its checks said)
     */
    boolean run(ScenarioContext context) throws Exception;
}
