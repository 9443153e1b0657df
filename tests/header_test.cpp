/* The public header compiles on its own, pedantically, as C (and as C++, see header_test.cpp). */
#include <etl.h>

int main(void)
{
	return etl_version_number() == ETL_VERSION_NUMBER ? 0 : 1;
}
