/* A stand-in for the driver's libdcmi.so (tests only): two cards; card 3 has two dies
 * (logic ids 4, 5) and an Mcu without a logic id; card 7 has one 310P3 die (logic id 0).
 * Layouts follow DcmiLibrary.cpp's reading of the DCMI API Reference. */
#include <string.h>

struct chip_info { unsigned char type[32], name[32], ver[32]; unsigned int aicore; };
struct hbm_info { unsigned long long size; unsigned int freq; unsigned long long usage; int temp; unsigned int bw; };

int dcmi_init(void) { return 0; }
int dcmi_get_card_list(int *num, int *list, int len) {
    if (len < 2) return -1;
    *num = 2; list[0] = 3; list[1] = 7; return 0;
}
int dcmi_get_device_num_in_card(int card, int *num) { *num = card == 3 ? 3 : 1; return 0; }
int dcmi_get_device_logic_id(int *logic, int card, int dev) {
    if (card == 3 && dev < 2) { *logic = 4 + dev; return 0; }
    if (card == 7 && dev == 0) { *logic = 0; return 0; }
    return -8005; /* the Mcu */
}
int dcmi_get_device_chip_info(int card, int dev, struct chip_info *info) {
    (void)dev;
    strcpy((char *)info->type, "Ascend");
    strcpy((char *)info->name, card == 3 ? "910B3" : "310P3");
    strcpy((char *)info->ver, "V1");
    info->aicore = 20;
    return 0;
}
int dcmi_get_device_health(int card, int dev, unsigned int *health) { *health = card == 3 && dev == 1 ? 1 : 0; return 0; }
int dcmi_get_device_temperature(int card, int dev, int *t) { (void)card; *t = 40 + dev; return 0; }
int dcmi_get_device_power_info(int card, int dev, int *p) { (void)dev; *p = card == 3 ? 935 : -1; return card == 3 ? 0 : -8255; }
int dcmi_get_device_hbm_info(int card, int dev, struct hbm_info *h) {
    (void)dev; if (card != 3) return -8255;
    h->size = 65536; h->freq = 1600; h->usage = 3392; h->temp = 40; h->bw = 0; return 0;
}
int dcmi_get_device_utilization_rate(int card, int dev, int type, unsigned int *rate) {
    (void)card; (void)dev; *rate = type == 2 ? 87 : 0; return 0;
}
