/*
 * 3030-chainjudge - a latency row below a cycle or below its own throughput is
 * no latency; one within its noise of the throughput, or measured in ticks, is
 * left alone.
 */
#include <string.h>

#include "t32/core/chainjudge.h"
#include "t/tap.h"

static struct t32_rate rate(double v, double hw)
{
	return (struct t32_rate){ 1, v, v - hw, v + hw };
}

int main(void)
{
	char why[512];
	struct t32_rate lat, tp, none = { 0 };

	plan(18);

	lat = rate(0.1347, 0.001);
	tp = rate(0.1278, 0.002);
	is_int(T32_CHAIN_BELOW_FLOOR, t32_chain_judge("mov rbx, rax; mov rax, rbx", 1, &lat, &tp, why,
						       sizeof(why)), "0.13 cycles: below the floor");
	ok(strstr(why, "no dependency carried (an eliminated move)") != NULL, "it says what: %s", why);
	ok(strstr(why, "0.1347") != NULL, "and keeps the measured rate");
	is_int(T32_CHAIN_BELOW_FLOOR, t32_chain_judge("vxorps zmm0, zmm0", 1, &lat, NULL, why, sizeof(why)),
	       "below the floor without a throughput row");
	ok(strstr(why, "zero idiom") != NULL, "a zero idiom named: %s", why);
	lat = rate(0.89, 0.001);
	is_int(T32_CHAIN_BELOW_FLOOR, t32_chain_judge(NULL, 1, &lat, NULL, why, sizeof(why)),
	       "0.89 cycles is below 0.9");
	lat = rate(0.91, 0.001);
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 1, &lat, NULL, why, sizeof(why)), "0.91 is not");
	is_int(0, (int)strlen(why), "and no reason is written");
	lat = rate(0.2, 0.001);
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 0, &lat, NULL, why, sizeof(why)),
	       "in ticks the cycle floor does not apply");
	lat = rate(0.8, 0.2);
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 1, &lat, NULL, why, sizeof(why)),
	       "0.8 +- 0.2: the interval reaches past 0.9, not judged below it");

	/* below its own throughput: beyond both intervals and the margin */
	lat = rate(2.0, 0.01);
	tp = rate(3.0, 0.01);
	is_int(T32_CHAIN_BELOW_TP, t32_chain_judge("imul rax, rbx", 1, &lat, &tp, why, sizeof(why)),
	       "2 cycles against a throughput of 3: below it");
	ok(strstr(why, "below the form's own throughput 3.0000") != NULL, "says so: %s", why);
	is_int(T32_CHAIN_BELOW_TP, t32_chain_judge(NULL, 0, &lat, &tp, why, sizeof(why)),
	       "in ticks too");
	lat = rate(15.03, 0.02);
	tp = rate(15.14, 0.02);
	is_int(T32_CHAIN_OK, t32_chain_judge("fdiv dword [rsi]", 1, &lat, &tp, why, sizeof(why)),
	       "0.7%% below, beyond both intervals: two rows of one chain, within the margin");
	lat = rate(1.00, 0.01);
	tp = rate(1.05, 0.045);
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 1, &lat, &tp, why, sizeof(why)),
	       "5%% below but within the throughput's interval");
	lat = rate(1.00, 0.01);
	tp = rate(1.10, 0.01);
	is_int(T32_CHAIN_BELOW_TP, t32_chain_judge(NULL, 1, &lat, &tp, why, sizeof(why)),
	       "10%% below, beyond both intervals");
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 1, &lat, &none, why, sizeof(why)),
	       "no throughput row: nothing to judge against above the floor");
	lat.have = 0;
	lat.value = 0.1;
	is_int(T32_CHAIN_OK, t32_chain_judge(NULL, 1, &lat, &tp, why, sizeof(why)),
	       "a row that is not ok is not judged again");
	return done_testing();
}
