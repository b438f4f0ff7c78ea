#include <stdio.h>
#include <stdlib.h>

struct person {
    int id;
    struct person *next;
};

int main(void)
{
    int n, k, i, step;
    struct person *last = NULL;
    struct person *p;

    if (scanf("%d %d", &n, &k) != 2 || k < 1)
        return 0;
    if (n <= 0) {
        printf("nobody\n");
        return 0;
    }
    for (i = 1; i <= n; i++) {
        p = malloc(sizeof(struct person));
        p->id = i;
        if (last == NULL) {
            p->next = p;
        } else {
            p->next = last->next;
            last->next = p;
        }
        last = p;
    }
    printf("out:");
    while (last->next != last) {
        for (step = 1; step < k; step++)
            last = last->next;
        p = last->next;
        last->next = p->next;
        printf(" %d", p->id);
        free(p);
    }
    printf("\nsurvivor: %d\n", last->id);
    free(last);
    return 0;
}
