#include <stdio.h>
#include <stdlib.h>

struct node {
    int value;
    struct node *next;
};

int main(void)
{
    int n, i, x;
    struct node *head = NULL;
    struct node *tail = NULL;
    struct node *p;

    if (scanf("%d", &n) != 1)
        return 0;
    for (i = 0; i < n; i++) {
        if (scanf("%d", &x) != 1)
            break;
        struct node *nd = malloc(sizeof(struct node));
        nd->value = x;
        nd->next = NULL;
        if (head == NULL)
            head = nd;
        else
            head->next = nd;
        tail = nd;
    }
    p = head;
    while (p != NULL) {
        printf("%d -> ", p->value);
        p = p->next;
    }
    printf("NULL\n");
    while (head != NULL) {
        p = head->next;
        free(head);
        head = p;
    }
    return 0;
}
