package io.dlock.redisprocess;

import org.junit.jupiter.api.RepeatedTest;

import static org.assertj.core.api.Assertions.assertThat;

/** Ports are chosen below the kernel's ephemeral range, bus ports included (see {@link Ports}). */
class PortsTest {

    @RepeatedTest(20)
    void portsAndBusPortsStayBelowTheEphemeralRange() {
        int ephemeralLow = Ports.ephemeralLow();
        assertThat(ephemeralLow).isGreaterThan(Ports.LOWEST);
        assertThat(Ports.freePort()).isBetween(Ports.LOWEST, ephemeralLow - 1);
        if (ephemeralLow - Ports.BUS_PORT_OFFSET - Ports.LOWEST >= 1_000) {
            int cluster = Ports.freeClusterPort();
            assertThat(cluster).isGreaterThanOrEqualTo(Ports.LOWEST);
            assertThat(cluster + Ports.BUS_PORT_OFFSET).isLessThan(ephemeralLow);
        }
    }
}
