/* rowreduce bench: placeholder until its issue lands. */
#include "commands.h"

int rr_cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'bench' is not built yet");
}
